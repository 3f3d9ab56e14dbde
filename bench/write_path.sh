#!/usr/bin/env bash
# The write path (issue 16): durable registration at low concurrency (a paced 1,000/s from 64
# streams) and under load, and `bsfctl rebuild`, on a store of N bindings.
#
#   bench/write_path.sh [N] [DIR]      default N=100000, DIR=/tmp/bsf-write-bench
#
# Environment: BSFD (binary), WORKERS (sbi.workers, 1), LOW_COUNT (registrations of each paced
# run, 20000), WINDOWS (the store.commit_window_us values of the paced runs, "0 500"; "base"
# runs BASE_BSFD, a build before the key, without it; the loaded run is then made with both),
# LOAD_COUNT (of the loaded run, 300000), EXTRA ("--set k=v ..." for bsfd), PERF=1 (perf
# record -g of each paced run into $DIR.perf.W.data), REBUILD=0 (skip the rebuild).
# Admission control is off: on a shared machine it would shed the load.
# Figures: bsfd's CPU (utime+stime from /proc) per registration, registrations per
# transaction (bsf_store_commands_total / bsf_store_transactions_total), events/s of rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=${1:-100000}
DIR=${2:-/tmp/bsf-write-bench}
WORKERS=${WORKERS:-1}
LOW_COUNT=${LOW_COUNT:-20000}
LOAD_COUNT=${LOAD_COUNT:-300000}
EXTRA=${EXTRA:-}
EXTRA0=$EXTRA
WINDOWS=${WINDOWS:-0 500}
START=$N
SBI_PORT=${SBI_PORT:-$(free_port)}
OPS_PORT=${OPS_PORT:-$(free_port)}

start_bsfd() {
    # shellcheck disable=SC2086
    bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.log" --set sbi.workers="$WORKERS" \
        --set admission.enabled=false $EXTRA
}
metric() { curl -s "http://127.0.0.1:$OPS_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
per_txn() { # commands and transactions before: prints commands per transaction since then
    local c t
    c=$(metric bsf_store_commands_total); t=$(metric bsf_store_transactions_total)
    /usr/bin/python3 -c "print('registrations per transaction: %.2f (%d commands, %d transactions)' % (($c-$1)/max(1,$t-$2), $c-$1, $t-$2))"
}

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(uname -r)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg); extra: ${EXTRA:-none}"
rm -rf "$DIR" "$DIR.log" "$DIR.rebuilt"
start_bsfd
echo "## preload $N bindings (8 x 128 streams)"
"$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$N" --connections 8 --streams 128 \
    --pid "$PID"

# The paced run once per commit window (bsfd restarted with it), so they compare in one run.
for w in $WINDOWS; do
    bsfd_stop
    if [ "$w" = base ]; then EXTRA="$EXTRA0" BSFD="$BASE_BSFD" start_bsfd # the build before
    else EXTRA="$EXTRA0 --set store.commit_window_us=$w" start_bsfd; fi
    echo "## paced: $LOW_COUNT registrations at 1,000/s from 64 streams (8 connections x 8), store.commit_window_us=$w"
    c0=$(metric bsf_store_commands_total); t0=$(metric bsf_store_transactions_total)
    if [ "${PERF:-0}" = 1 ]; then
        perf record -g -o "$DIR.perf.$w.data" -p "$PID" 2>/dev/null & PERF_PID=$!
    fi
    "$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$LOW_COUNT" --start "$START" \
        --connections 8 --streams 8 --rate 1000 --pid "$PID"
    if [ "${PERF:-0}" = 1 ]; then kill -INT "$PERF_PID"; wait "$PERF_PID" || true; fi
    per_txn "$c0" "$t0"
    START=$((START + LOW_COUNT))
done
for b in "$BSFD" ${BASE_BSFD:-}; do
    bsfd_stop
    EXTRA="$EXTRA0" BSFD="$b" start_bsfd
    echo "## loaded: $LOAD_COUNT registrations, 8 connections x 128 streams, $b"
    c0=$(metric bsf_store_commands_total); t0=$(metric bsf_store_transactions_total)
    "$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --count "$LOAD_COUNT" \
        --start "$START" --connections 8 --streams 128 --pid "$PID"
    per_txn "$c0" "$t0"
    START=$((START + LOAD_COUNT))
done
bsfd_stop

if [ "${REBUILD:-1}" = 1 ]; then
    echo "## bsfctl rebuild ($START events): its own rate, then CPU (user+sys) per event"
    /usr/bin/time -f "%U %S" -o "$DIR.time" "$BSFCTL" --store "$DIR" rebuild --out "$DIR.rebuilt" \
        2>&1 >/dev/null | grep 'events replayed'
    read -r u s < "$DIR.time"
    /usr/bin/python3 -c "print('rebuild CPU per event (digest included): %.2f us' % (($u + $s) * 1e6 / $START))"
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$DIR.rebuilt"
