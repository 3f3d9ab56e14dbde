#!/usr/bin/env bash
# Issue 16: loads N bindings into a fresh store for the scale benchmarks (bench/scale.sh).
#
#   bench/scale_load.sh N DIR        e.g. bench/scale_load.sh 25000000 /tmp/bsf-25m
#
# Registration i carries the UE address kind i % 3 (bsf-load --key-mix: IPv4 10.0.0.0 + i,
# IPv6 prefix 2001:db8:<i>::/64, MAC 02-00-<i>), SUPI, GPSI, DNN/S-NSSAI and the PCF's
# addresses, durable before the 201. bsfd runs with one SBI worker; BSFD, LOAD select builds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:?N}
DIR=${2:?DIR}
SBI_PORT=${SBI_PORT:-18580}
OPS_PORT=${OPS_PORT:-18590}
rm -rf "$DIR" "$DIR.log"
trap bsfd_stop EXIT
bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.log" --set sbi.workers=1
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); $N bindings into $DIR"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$N" --key-mix \
    --connections 8 --streams 128 --pid "$PID"
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); done"
