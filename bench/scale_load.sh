#!/usr/bin/env bash
# Issue 16: loads N bindings into a fresh store for the scale benchmarks (bench/scale.sh).
#
#   bench/scale_load.sh N DIR        e.g. bench/scale_load.sh 25000000 /tmp/bsf-25m
#
# Registration i carries the UE address kind i % 3 (bsf-load --key-mix: IPv4 10.0.0.0 + i,
# IPv6 prefix 2001:db8:<i>::/64, MAC 02-00-<i>), SUPI, GPSI, DNN/S-NSSAI and the PCF's
# addresses, durable before the 201. bsfd runs with one SBI worker; BSFD, LOAD select builds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:?N}
DIR=${2:?DIR}
SBI_PORT=${SBI_PORT:-18580}
OPS_PORT=${OPS_PORT:-18590}
BSFD="${BSFD:-$ROOT/build/bsfd/bsfd}"
LOAD="${LOAD:-$ROOT/build/bench/bsf-load}"
rm -rf "$DIR" "$DIR.log"
"$BSFD" --set store.path="$DIR" --set sbi.listen=127.0.0.1:$SBI_PORT \
    --set ops.listen=127.0.0.1:$OPS_PORT --set ops.admin_listen= --set sbi.workers=1 \
    --set log.level=warn 2>>"$DIR.log" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null; wait $PID || true' EXIT
until curl -sf "http://127.0.0.1:$OPS_PORT/health/ready" >/dev/null; do sleep 0.01; done
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); $N bindings into $DIR"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$N" --key-mix \
    --connections 8 --streams 128 --pid "$PID"
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); done"
