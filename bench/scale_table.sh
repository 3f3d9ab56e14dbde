#!/usr/bin/env bash
# Issue 16: every row of the scale table in one sequence, on a small and a large store, so
# that each figure at N bindings has the 100,000-binding figure of the same run beside it.
#
#   bench/scale_table.sh SMALL_DIR LARGE_DIR [OUT_DIR]
#
# Each DIR is made by `build/bench/scale-gen DIR N 16384` when it does not exist yet
# (SMALL_N=100000, LARGE_N=25000000). Then, for the small store and the large one in turn:
# discovery with 1 and 2 workers (bench/scale.sh; REQUESTS=200000); restart to ready, once
# with the data file dropped from the page cache and twice warm; discovery in a cgroup of half
# the data file (large store only; MEMORY_MAX); `bsfctl rebuild` into OUT_DIR/rebuilt (removed
# afterwards); durable registration paced and loaded (bench/scale_write.sh, last because it
# adds bindings to the store). Every step's output goes to OUT_DIR/*.txt and is echoed; the
# figures are bsfd's CPU per operation (utime+stime), so compare the ratios when the machine
# is shared.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SMALL=${1:?SMALL_DIR}
LARGE=${2:?LARGE_DIR}
OUT=${3:-/tmp/bsf-scale-table}
REQUESTS=${REQUESTS:-200000}
BSFCTL="${BSFCTL:-$ROOT/build/bsfctl/bsfctl}"
GEN="${GEN:-$ROOT/build/bench/scale-gen}"
mkdir -p "$OUT"

step() { # name command...: runs it, keeps and shows its output
    local name=$1
    shift
    echo "## $name ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$@" 2>&1 | tee "$OUT/$name.txt"
}

ready_ms() { # DIR: the time to ready of one more start (bench/scale.sh with no requests)
    WARMUP_PATTERN=warm-up "$ROOT/bench/scale.sh" "$1" 1 1 | awk -F= '/^time_to_ready_ms/{print $2}'
}

restarts() { # DIR: one start with the store's pages dropped from the page cache, two warm
    echo "time to ready: cold $(COLD=1 ready_ms "$1") ms, warm $(ready_ms "$1") ms, $(ready_ms "$1") ms"
}

rebuild() { # DIR
    local dst="$OUT/rebuilt"
    rm -rf "$dst"
    /usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M kB" \
        "$BSFCTL" --store "$1" rebuild --out "$dst"
    rm -rf "$dst"
}

for pair in "small:$SMALL:${SMALL_N:-100000}" "large:$LARGE:${LARGE_N:-25000000}"; do
    IFS=: read -r tag dir n <<<"$pair"
    [ -e "$dir/data.mdb" ] || step "$tag-generate" /usr/bin/time -f "wall %e s" "$GEN" "$dir" "$n" 16384
    # keys of the generated bindings only (a previous run's writes added others), and after
    # the whole map is populated (the warm-up thread's CPU and faults are not a discovery's)
    export RANGE=$n WARMUP_PATTERN="warm-up: [0-9]"
    step "$tag-discovery-1w" "$ROOT/bench/scale.sh" "$dir" "$REQUESTS" 1
    step "$tag-discovery-2w" "$ROOT/bench/scale.sh" "$dir" "$REQUESTS" 2
    step "$tag-restart" restarts "$dir"
    if [ "$tag" = large ]; then
        half=$(($(stat -c %s "$dir/data.mdb") / 2))
        step "$tag-memory-half" env WARMUP_PATTERN=warm-up MEMORY_MAX="$half" "$ROOT/bench/scale.sh" "$dir" 100000 1
    fi
    step "$tag-rebuild" rebuild "$dir"
    step "$tag-write" "$ROOT/bench/scale_write.sh" "$dir" 1
done
echo "## done ($(date -u +%T)); outputs in $OUT"
