#!/usr/bin/env bash
# Steady re-registration churn against a bsfd with a short log.retention and tombstone
# horizon: prints the data file's size, the log's oldest position and age, and bsfd's CPU per
# registration over time (issue 12 §6). The same RANGE bindings are registered again and
# again, so every request replaces a binding (2 events, 1 tombstone).
#   bench/retention_soak.sh [SECONDS=60] [RATE=5000] [RETENTION=10s] [RANGE=25000]
#   BSFD=..., BSF_LOAD=... to measure other builds; ARCHIVE=DIR adds log.archive_dir;
#   CONNECTIONS=4 STREAMS=32 (the defaults) set the load's requests in flight (the rate is at
#   most in-flight / commit latency); SETTINGS="k=v k2=v2" adds bsfd settings.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_TOTAL=${1:-60}
RATE=${2:-5000}
RETENTION=${3:-10s}
RANGE=${4:-25000}
BSFD=${BSFD:-$ROOT/build/bsfd/bsfd}
BSF_LOAD=${BSF_LOAD:-$ROOT/build/bench/bsf-load}
work=$(mktemp -d /tmp/bsf-soak-XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ops=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
extra=()
[ -n "${ARCHIVE:-}" ] && extra=(--set "log.archive_dir=$ARCHIVE")
for kv in ${SETTINGS:-}; do extra+=(--set "$kv"); done
"$BSFD" --set store.path="$work/store" --set sbi.listen=127.0.0.1:$port \
  --set ops.listen=127.0.0.1:$ops --set ops.admin_listen= --set log.retention="$RETENTION" \
  --set store.tombstone_horizon="$RETENTION" --set log.level=warn "${extra[@]}" \
  >"$work/bsfd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf "127.0.0.1:$ops/health/ready" >/dev/null; do
  kill -0 $pid 2>/dev/null || { cat "$work/bsfd.log" >&2; exit 1; }
  sleep 0.1
done
count=$((RATE * SECONDS_TOTAL))
"$BSF_LOAD" --target 127.0.0.1:$port --mode register --count "$count" --range "$RANGE" \
  --connections "${CONNECTIONS:-4}" --streams "${STREAMS:-32}" --rate "$RATE" --pid $pid >"$work/load.log" 2>&1 &
load=$!
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }
# the engine (single writer) thread apart: the task named bsf-engine
engine_task=$(grep -lx bsf-engine /proc/$pid/task/*/comm | head -1)
engine_task=${engine_task%/comm}
ecpu() { awk '{print $14 + $15}' "$engine_task/stat"; }
per_event() { awk -v c="$1" -v t=$ticks -v e="$2" \
  'BEGIN { if (e > 0) printf "%.1f", c / t * 1e6 / e; else print "-" }'; }
printf '%6s %12s %10s %10s %10s %8s %12s %12s %6s\n' t_s file_bytes log_pos oldest_pos \
  oldest_age reg/s cpu_us/event engine_us/ev load1
prev_cpu=$(cpu); prev_ecpu=$(ecpu); prev_pos=0; t=0
while kill -0 $load 2>/dev/null; do
  sleep 5; t=$((t + 5))
  m=$(curl -s "127.0.0.1:$ops/metrics")
  get() { awk -v n="$1" '$1 == n {print $2}' <<<"$m"; }
  pos=$(get bsf_store_log_position); c=$(cpu); ec=$(ecpu)
  # a re-registration writes two events (the replaced binding's deregistration, the new one)
  printf '%6d %12d %10d %10s %10s %8d %12s %12s %6s\n' $t \
    "$(stat -c %s "$work/store/data.mdb")" "$pos" "$(get bsf_log_oldest_position)" \
    "$(get bsf_log_oldest_age_seconds)" $(((pos - prev_pos) / 10)) \
    "$(per_event $((c - prev_cpu)) $((pos - prev_pos)))" \
    "$(per_event $((ec - prev_ecpu)) $((pos - prev_pos)))" "$(cut -d' ' -f1 /proc/loadavg)"
  prev_cpu=$c; prev_ecpu=$ec; prev_pos=$pos
done
cat "$work/load.log"
