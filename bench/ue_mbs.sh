#!/usr/bin/env bash
# Issue 11 §6 (first half): registration and discovery of PCF-for-UE and MBS bindings next to
# pcfBindings', on one bsfd (sbi.workers=1, so that bsf-load has the other core), each
# resource on the same store. Prints bsf-load's line per run: rate, latency percentiles and
# bsfd's CPU per request (utime + stime from /proc).
#
#   bench/ue_mbs.sh [N] [DIR]    default N=20000 per resource, DIR=/tmp/bsf-bench-ue-mbs
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-20000}
DIR=${2:-/tmp/bsf-bench-ue-mbs}
SBI_PORT=${SBI_PORT:-18580}
OPS_PORT=${OPS_PORT:-18590}
rm -rf "$DIR" "$DIR.log"
trap bsfd_stop EXIT
bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.log" --set sbi.workers=1
for resource in pcf ue mbs; do
  for mode in register discover; do
    echo -n "$resource $mode: "
    "$LOAD" --target 127.0.0.1:$SBI_PORT --resource "$resource" --mode "$mode" --count "$N" \
        --range "$N" --connections 4 --streams 32 --pid "$PID"
  done
done
curl -sf "http://127.0.0.1:$OPS_PORT/oc-bsf-configuration/v1/activeSessionCount/pcfBindings"
echo
