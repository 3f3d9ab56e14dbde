#!/usr/bin/env bash
# Issue 9 benchmark: discovery with and without the SBI limits, and memory per idle
# connection.
#
#   bench/sbi_limits.sh [BASE_BSFD] [N] [RUNS]
#
# Three bsfd run side by side, each with sbi.workers=1 and N bindings (default 200000):
#   limits  this build, default limits (deadlines, worker memory budget, header list size)
#   off     this build, every deadline and the budget set to 0
#   base    BASE_BSFD (e.g. a build of the commit before the limits), when given
# Discovery runs (bsf-load, 4 connections x 64 streams, 300k requests at random among the N)
# alternate limits / off / base RUNS times (default 5), so that a drift of the shared
# machine hits each alike; bsfd's CPU per discovery (utime+stime from /proc) is the figure.
# Then 5000 idle HTTP/2 connections (preface + SETTINGS + ACK) are opened to each and the
# growth of VmRSS is divided by 5000.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${1:-}
N=${2:-200000}
RUNS=${3:-5}
NEW="$ROOT/build/bsfd/bsfd"
LOAD="$ROOT/build/bench/bsf-load"
DIR=$(mktemp -d /tmp/bsf-sbi-limits.XXXXXX)
declare -A PID PORT
OFF=(--set sbi.preface_timeout_s=0 --set sbi.header_timeout_s=0 --set sbi.body_timeout_s=0
     --set sbi.send_timeout_s=0 --set sbi.worker_memory_mb=0 --set sbi.idle_timeout_s=0)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start() { # name binary extra-args...
    local name=$1 bin=$2; shift 2
    local sbi ops; sbi=$(free_port); ops=$(free_port)
    mkdir -p "$DIR/$name"
    "$bin" --set store.path="$DIR/$name" --set sbi.listen=127.0.0.1:$sbi \
        --set ops.listen=127.0.0.1:$ops --set sbi.workers=1 --set log.level=warn "$@" \
        2>>"$DIR/$name.log" &
    PID[$name]=$!
    PORT[$name]=$sbi
    until curl -sf "http://127.0.0.1:$ops/health/ready" >/dev/null; do sleep 0.01; done
    "$LOAD" --target 127.0.0.1:$sbi --mode register --count "$N" --connections 8 --streams 128 \
        >/dev/null
}

names=(limits off)
start limits "$NEW"
start off "$NEW" "${OFF[@]}"
if [ -n "$BASE" ]; then names+=(base); start base "$BASE"; fi
trap 'for n in "${names[@]}"; do kill -TERM "${PID[$n]}" 2>/dev/null || true; done; wait; rm -rf "$DIR"' EXIT

echo "# machine: $(nproc) cores, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for ((r = 1; r <= RUNS; r++)); do
    for n in "${names[@]}"; do
        line=$("$LOAD" --target 127.0.0.1:${PORT[$n]} --mode discover --count 300000 --range "$N" \
               --connections 4 --streams 64 --pid "${PID[$n]}" --json)
        echo "run $r $n $line"
    done
done

for n in "${names[@]}"; do
    python3 - "${PID[$n]}" "${PORT[$n]}" "$n" <<'PY'
import resource, socket, struct, sys, time
pid, port, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
hello = (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0\0\0\x04\0\0\0\0\0" + b"\0\0\0\x04\x01\0\0\0\0")
time.sleep(0.5)
before, socks = rss(), []
for _ in range(5000):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(hello)
    socks.append(s)
time.sleep(2)
after = rss()
print(f"idle {name}: 5000 connections, RSS {before/2**20:.1f} -> {after/2**20:.1f} MiB, "
      f"{(after - before) / 5000:.0f} bytes per connection")
for s in socks:
    s.close()
PY
done
