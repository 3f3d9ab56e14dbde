#!/usr/bin/env bash
# Issue 16: durable registration on a large existing store (from build/bench/scale-gen or
# bench/scale_load.sh): paced 1,000/s from 64 streams and loaded 8 x 128 streams, new bindings
# beyond the store's (bsf-load --key-mix --start N), bsfd's CPU (utime+stime) per registration
# and registrations per transaction. The store keeps what is registered.
#
#   bench/scale_write.sh DIR [WORKERS=1]     LOW_COUNT (20000), LOAD_COUNT (300000)
# Admission control is off: on a shared machine it would shed the load. SETTINGS="k=v k2=v2"
# adds bsfd settings (e.g. store.commit_window_us=20000).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
DIR=${1:?DIR}
WORKERS=${2:-1}
LOW_COUNT=${LOW_COUNT:-20000}
LOAD_COUNT=${LOAD_COUNT:-300000}
SBI_PORT=${SBI_PORT:-18880}
OPS_PORT=${OPS_PORT:-18890}
metric() { curl -s "http://127.0.0.1:$OPS_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# utime+stime of the threads named $1 (bsf-engine, bsf-sbi-worker): where the single writer
# becomes the limit (the engine thread's CPU per registration bounds the rate any number of
# SBI workers can reach)
thread_cpu() {
    local t=0 d
    for d in /proc/$PID/task/*; do
        [ "$(cat "$d/comm" 2>/dev/null)" = "$1" ] || continue
        t=$((t + $(awk '{print $14 + $15}' "$d/stat")))
    done
    echo $t
}

extra=()
for kv in ${SETTINGS:-}; do extra+=(--set "$kv"); done
live=$("$BSFCTL" --store "$DIR" stats | awk '/^live bindings/{print $3}')
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores;" \
     "store $live bindings; sbi.workers=$WORKERS"
: >"$DIR.write.log" # the warm-up's line is waited for below: not an earlier run's
trap bsfd_stop EXIT
bsfd_start "$DIR" "$SBI_PORT" "$OPS_PORT" "$DIR.write.log" --set sbi.workers="$WORKERS" \
    --set log.level=info --set admission.enabled=false "${extra[@]}"
# until the whole map is populated: the warm-up thread's CPU is not a registration's
for _ in $(seq 1200); do grep -qE "warm-up: [0-9]|warm-up stopped" "$DIR.write.log" && break; sleep 0.1; done

start=${START:-$((live * 2))} # beyond every key the store holds, also after earlier runs
per() { awk -v d="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.1f", d / hz / n * 1e6 }'; } # ticks, count: µs each
run() { # label count connections streams [rate]
    local c0 t0 p0 e0 w0 out c1 e1 w1 txns
    c0=$(metric bsf_store_commands_total); t0=$(metric bsf_store_transactions_total); p0=$(cpu_ticks "$PID")
    e0=$(thread_cpu bsf-engine); w0=$(thread_cpu bsf-sbi-worker)
    out=$("$LOAD" --target 127.0.0.1:$SBI_PORT --mode register --key-mix --start "$start" \
        --count "$2" --connections "$3" --streams "$4" ${5:+--rate "$5"})
    c1=$(cpu_ticks "$PID"); e1=$(thread_cpu bsf-engine); w1=$(thread_cpu bsf-sbi-worker)
    start=$((start + $2))
    txns=$(( $(metric bsf_store_transactions_total) - t0 ))
    echo "$1: $(echo "$out" | grep -o '[0-9]* req/s'); $(echo "$out" | grep status);" \
        "$(echo "$out" | grep -o 'p50 [0-9.]* ms, p99 [0-9.]* ms');" \
        "cpu_us/registration=$(per $((c1 - p0)) "$2")" \
        "engine_us=$(per $((e1 - e0)) "$2") sbi_workers_us=$(per $((w1 - w0)) "$2")" \
        "per_txn=$(awk -v c=$(( $(metric bsf_store_commands_total) - c0 )) -v t=$txns \
            'BEGIN { printf "%.1f", c / (t > 0 ? t : 1) }')"
}
run "paced 1,000/s, 8 x 8 streams" "$LOW_COUNT" 8 8 1000
run "loaded, 8 x 128 streams" "$LOAD_COUNT" 8 128
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg)"
