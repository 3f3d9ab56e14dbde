#!/usr/bin/env bash
# Runs every fuzz target for a bounded time from its seed corpus.
#   tests/fuzz/run.sh BUILD_DIR SECONDS
#   FUZZ_TARGETS="a b"  only those targets (names without fuzz_)
#   FUZZ_JOBS=N         targets run at once (default: the number of CPUs, at most 4)
# Every fuzz_*.c of this folder that defines LLVMFuzzerTestOneInput is a target, so a new parser's target
# cannot be forgotten here. New inputs go to a scratch corpus (not committed); a crash fails
# the run, prints the sanitizer report and leaves the input as crash-* in the current
# directory.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
build=${1:?build dir}
seconds=${2:-30}
jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -gt 4 ] && jobs=4

all_targets() {
  for f in "$HERE"/fuzz_*.c; do
    grep -q 'LLVMFuzzerTestOneInput(const' "$f" && basename "$f" .c | sed 's/^fuzz_//'
  done
}

# One target; prints its summary (and the report of a crash) at once when it ends.
run_one() {
  local target=$1 work out maxlen=4096 status runs
  [ "$target" = h2_request ] && maxlen=16384 # a preface, SETTINGS and a few requests
  work=$(mktemp -d)
  out=$(mktemp)
  cp -r "$HERE/corpus/$target/." "$work/" 2>/dev/null
  "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 "$work" >"$out" 2>&1
  status=$?
  runs=$(grep -m1 '^stat::number_of_executed_units' "$out" | awk '{print $2}')
  {
    echo "fuzz_$target: ${seconds}s, ${runs:-?} runs, exit $status"
    [ "$status" -ne 0 ] && grep -E -A30 '==[0-9]+==ERROR|runtime error|SUMMARY' "$out" | head -60
  }
  rm -rf "$work" "$out"
  return "$status"
}
export -f run_one
export HERE build seconds

targets=${FUZZ_TARGETS:-$(all_targets)}
for t in $targets; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "fuzz_$t: not built in $build" >&2; exit 1; }
done
# xargs exits 123 when any target failed
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {}
