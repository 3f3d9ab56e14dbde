#!/usr/bin/env bash
# Foundation benchmark (issue 2): durable registration, discovery by IPv4, store size, RSS and
# time to ready, with N bindings stored.
#
#   bench/foundation.sh [N] [DIR]      default N=1000000, DIR=/tmp/bsf-bench-store
#
# Needs a release build (scripts/build.sh release) and h2load (Debian nghttp2-client).
# bsfd runs with sbi.workers=1 so that the load generator has the other core of a 2-core
# machine; CPU figures are bsfd's own (utime+stime from /proc) per request.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-1000000}
DIR=${2:-/tmp/bsf-bench-store}
SBI_PORT=${SBI_PORT:-18480}
OPS_PORT=${OPS_PORT:-18490}
WORKERS=${WORKERS:-1}

start_bsfd() {
    local t0 t1
    t0=$(date +%s%N)
    bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.log" --set sbi.workers="$WORKERS"
    t1=$(date +%s%N)
    echo "time_to_ready_ms=$(( (t1 - t0) / 1000000 ))"
}
trap bsfd_stop EXIT

rss() { grep -E 'VmRSS|VmHWM' "/proc/$PID/status" | tr -s ' ' | tr '\n' ' '; echo; }

echo "# machine: $(nproc) cores, $(awk '/MemTotal/{print int($2/1024/1024)" GiB"}' /proc/meminfo), $(uname -r)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
rm -rf "$DIR" "$DIR.log"

echo "## empty store"
start_bsfd

echo "## register $N unique bindings (durable before 201), 8 connections x 128 streams"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$N" --connections 8 --streams 128 \
    --pid "$PID"
echo "rss: $(rss)"
curl -s "http://127.0.0.1:$OPS_PORT/metrics" | grep -E '^bsf_store_(commands|transactions|commit_seconds)_total'

echo "## discovery by ipv4Addr, bsf-load (random addresses among the $N), 4 connections x 64 streams"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode discover --count 1000000 --range "$N" \
    --connections 4 --streams 64 --pid "$PID"

echo "## discovery by ipv4Addr, h2load (1 thread, 8 connections x 64 streams, 200k distinct URIs)"
uris=$(mktemp)
python3 - "$N" "$SBI_PORT" > "$uris" <<'EOF'
import random, sys
n, port = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(7)
for _ in range(200000):
    a = 0x0a000000 + rnd.randrange(n)
    print(f"http://127.0.0.1:{port}/nbsf-management/v1/pcfBindings?ipv4Addr="
          f"{a >> 24}.{(a >> 16) & 255}.{(a >> 8) & 255}.{a & 255}")
EOF
c0=$(cpu_ticks "$PID")
h2load -n 1000000 -c 8 -m 64 -t 1 -i "$uris" 2>&1 | grep -E 'finished in|requests:|status codes:|time for request:'
c1=$(cpu_ticks "$PID")
echo "bsfd cpu per discovery (h2load run): $(python3 -c "print(round(($c1-$c0)/$hz/1000000*1e6, 2))") us"
rm -f "$uris"
echo "rss: $(rss)"
bsfd_stop

echo "## store"
"$BSFCTL" --store "$DIR" stats
echo "## restart with $N bindings"
start_bsfd
echo "rss after restart: $(rss)"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode discover --count 200000 --range "$N" \
    --connections 4 --streams 64 --pid "$PID"
bsfd_stop
