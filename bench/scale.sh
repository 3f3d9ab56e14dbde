#!/usr/bin/env bash
# Issue 16: discovery CPU by IPv4, IPv6 (/128 in a /64) and MAC on a large store, with the
# page faults per request, the time to ready and the store's size per binding.
#
#   bench/scale.sh DIR [REQUESTS] [WORKERS]     DIR: a store from bench/scale_load.sh or
#                                                build/bench/scale-gen (--key-mix layout)
#
# BSFD selects the build; MEMORY_MAX=BYTES runs bsfd in a cgroup v1 memory group of that
# limit (created under this shell's memory cgroup) after dropping the store's pages from the
# page cache (posix_fadvise DONTNEED), so that the store exceeds the memory bsfd may use.
# Admission control is off: right after the start the warm-up's CPU can make it shed the load.
# RANGE=N: draw keys from the first N generated bindings (after bench/scale_write.sh added
# others). COLD=1: drop the store's pages from the page cache before the start. CPU figures are bsfd's utime+stime per request (/proc/PID/stat), faults minflt/majflt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
DIR=${1:?DIR}
REQ=${2:-100000}
WORKERS=${3:-1}
SBI_PORT=${SBI_PORT:-18780}
OPS_PORT=${OPS_PORT:-18790}

live=$("$BSFCTL" --store "$DIR" stats | awk '/^live bindings/{print $3}')
file=$(stat -c %s "$DIR/data.mdb")
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo "store: $live bindings, data file $file bytes = $((file / live)) B per binding"

if [ -n "${MEMORY_MAX:-}${COLD:-}" ]; then # drop the store's pages from the page cache
    /usr/bin/python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$DIR/data.mdb"
fi
BSFD_WRAP=()
if [ -n "${MEMORY_MAX:-}" ]; then
    parent=$(awk -F: '$2 ~ /(^|,)memory(,|$)/{print $3}' /proc/self/cgroup)
    CG=/sys/fs/cgroup/memory$parent/bsf-scale-$$
    mkdir -p "$CG"
    echo "$MEMORY_MAX" > "$CG/memory.limit_in_bytes"
    BSFD_WRAP=(sh -c "echo \$\$ > $CG/cgroup.procs; exec \"\$@\"" sh)
    echo "cgroup $CG memory.limit_in_bytes=$(cat "$CG/memory.limit_in_bytes")"
fi

t0=$(date +%s%N)
: >"$DIR.scale.log" # the warm-up's line is waited for below: not an earlier run's
trap 'bsfd_stop; [ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null || true' EXIT
bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.scale.log" --set sbi.workers="$WORKERS" \
    --set admission.enabled=false --set log.level=info
echo "time_to_ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))"
# let the warm-up finish (it logs when done), at most WARMUP_WAIT seconds (default 120)
# (WARMUP_PATTERN="warm-up: [0-9]": until the whole-map populate is done, not the trees)
for _ in $(seq $(( ${WARMUP_WAIT:-120} * 10 ))); do
    grep -q "${WARMUP_PATTERN:-warm-up}" "$DIR.scale.log" && break
    sleep 0.1
done
grep -E "warm-up" "$DIR.scale.log" | sed 's/^/  /' || echo "  (no warm-up)"

stat_of() { awk '{print $10, $12, $14 + $15}' "/proc/$PID/stat"; }
generated=${RANGE:-$live}
range=$(( generated - generated % 3 - 1 ))
for key in ipv4 ipv6 mac; do
    read -r mi0 ma0 c0 < <(stat_of)
    out=$("$LOAD" --target 127.0.0.1:$SBI_PORT --mode discover --count "$REQ" --range "$range" \
        --key "$key" --key-mix --connections 4 --streams 64)
    read -r mi1 ma1 c1 < <(stat_of)
    echo "$key: $(echo "$out" | grep -o '[0-9]* req/s') $(echo "$out" | grep status)" \
        "cpu_us=$(/usr/bin/python3 -c "print(round(($c1-$c0)/$hz/$REQ*1e6, 2))")" \
        "minflt/req=$(/usr/bin/python3 -c "print(round(($mi1-$mi0)/$REQ, 3))")" \
        "majflt/req=$(/usr/bin/python3 -c "print(round(($ma1-$ma0)/$REQ, 3))")"
done
grep -E "VmRSS|RssFile" "/proc/$PID/status" | tr -s ' \n' ' '; echo
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg)"
