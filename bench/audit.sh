#!/usr/bin/env bash
# The binding audit at its configured query rate and its cost to traffic (issue 12 §6).
# Loads N bindings whose registrations carry vendorSpecific-000111.notificationUrl (pointing
# at a test PCF that answers 200, tests/peers/pcf_sim.py), then measures for SECONDS:
#   1. traffic alone (registrations at TRAFFIC/s, audit off): latency, bsfd CPU;
#   2. the same traffic while the audit queries the PCF at RATE/s (every binding is past
#      audit.min_ttl): achieved query rate, latency, bsfd CPU; the difference of CPU divided
#      by the audited bindings is the audit's CPU per binding.
# A full cycle over N bindings takes N / RATE seconds; the run stops after SECONDS, so a
# million bindings are extrapolated from the measured rate and CPU per binding.
#   bench/audit.sh [N=100000] [RATE=500] [SECONDS=30] [TRAFFIC=2000]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-100000}
RATE=${2:-500}
SECS=${3:-30}
TRAFFIC=${4:-2000}
BSFD=${BSFD:-$ROOT/build/bsfd/bsfd}
BSF_LOAD=${BSF_LOAD:-$ROOT/build/bench/bsf-load}
PY=${PY:-/usr/bin/python3}
work=$(mktemp -d /tmp/bsf-audit-bench-XXXXXX)
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port); ops=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# the test PCF (200 to every audit query), its port on stdout
$PY - "$work/pcf.port" "$ROOT" <<'PYEOF' &
import sys, time, pathlib
sys.path.insert(0, str(pathlib.Path(sys.argv[2]) / "tests" / "peers"))
from pcf_sim import PcfSim
pcf = PcfSim("found").start()
open(sys.argv[1], "w").write(str(pcf.port))
while True:
    time.sleep(5)
    print(f"pcf queries {len(pcf.queries)} violations {len(pcf.violations)}", file=sys.stderr)
PYEOF
pids+=($!)
until [ -s "$work/pcf.port" ]; do sleep 0.2; done
pcf_port=$(cat "$work/pcf.port")

start_bsfd() { # $1: audit.enabled
  "$BSFD" --set store.path="$work/store" --set sbi.listen=127.0.0.1:$port \
    --set ops.listen=127.0.0.1:$ops --set ops.admin_listen= --set log.level=warn \
    --set audit.enabled="$1" \
    --set audit.min_ttl=1s --set audit.interval=1h --set audit.max_queries_per_s="$RATE" \
    --set audit.query_timeout=2s >>"$work/bsfd.log" 2>&1 &
  bsfd=$!
  pids+=($bsfd)
  until curl -sf "127.0.0.1:$ops/health/ready" >/dev/null; do sleep 0.1; done
}
stop_bsfd() { kill "$bsfd"; wait "$bsfd" 2>/dev/null || true; }
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / t}' /proc/$bsfd/stat; }
metric() { curl -s "127.0.0.1:$ops/metrics" | awk -v n="$1" '$1 == n {print $2}'; }
traffic() { # $1: first index; registrations at TRAFFIC/s for SECS
  "$BSF_LOAD" --target 127.0.0.1:$port --mode register --start "$1" \
    --count $((TRAFFIC * SECS)) --connections 2 --streams 16 --rate "$TRAFFIC" --pid "$bsfd"
}

echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "== loading $N bindings with a notificationUrl (audit off)"
start_bsfd false
"$BSF_LOAD" --target 127.0.0.1:$port --mode register --count "$N" --connections 4 \
  --streams 32 --notify "http://127.0.0.1:$pcf_port/npcf-custom-binding/v1/sessions/" | tail -3
echo "== 1. traffic alone: $TRAFFIC registrations/s for ${SECS}s"
c0=$(cpu_s); traffic 1000000000 | tail -4; c1=$(cpu_s)
base=$(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.2f", b - a}')
echo "bsfd CPU: ${base} s"
stop_bsfd

echo "== 2. the same traffic while the audit runs at $RATE queries/s"
start_bsfd true
sleep 1
q0=$(metric bsf_audit_queries_total); c0=$(cpu_s); t0=$(date +%s.%N)
traffic 2000000000 | tail -4
q1=$(metric bsf_audit_queries_total); c1=$(cpu_s); t1=$(date +%s.%N)
confirmed=$(curl -s "127.0.0.1:$ops/metrics" | awk '$1 == "bsf_audit_outcomes_total{outcome=\"confirmed\"}" {print $2}')
dropped=$(curl -s "127.0.0.1:$ops/metrics" | awk '$1 == "bsf_audit_outcomes_total{outcome=\"dropped\"}" {print $2}')
stop_bsfd
awk -v q0="$q0" -v q1="$q1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v base="$base" \
    -v n="$N" -v rate="$RATE" -v conf="$confirmed" -v drop="$dropped" 'BEGIN {
  q = q1 - q0; s = t1 - t0; cpu = c1 - c0; extra = cpu - base
  printf "audit queries: %d in %.1f s = %.0f/s (configured %d/s); confirmed %d, dropped %d\n", q, s, q / s, rate, conf, drop
  printf "bsfd CPU: %.2f s (traffic alone %.2f s): audit %.2f s = %.1f us per audited binding\n", cpu, base, extra, extra / q * 1e6
  printf "extrapolated (not measured): a cycle over %d bindings at %d/s takes %.0f s; 1,000,000 bindings take %.0f s and %.1f s of CPU\n", n, rate, n / rate, 1e6 / rate, extra / q * 1e6
}'
