#!/usr/bin/env bash
# Issue 14 §8 benchmark: a discovery flood (h2load, C connections x M streams, for S seconds)
# far over the SBI's capacity, with a priority-1 probe beside it (bsf-load --priority 1: one
# discovery at a time, every 5 ms, on its own HTTP/2 connection), once with admission control
# on (the defaults) and once with admission.enabled=false.
# Reports per run: the flood's answered/shed counts, bsfd's CPU and RSS before/after, the CPU
# per flood request, and the probe's answered share and latency. The last run is the same
# flood, admission off, on a path bsfd answers at once with a 404 ProblemDetails (an answer
# of about the shed answer's size) for comparison. Then the CPU per shed request on one
# thread without sockets (bench/admission-bench): a shed request against the same request
# admitted and answered with an empty 204 at once, the HTTP/2 floor.
#
#   bench/admission.sh [SECONDS] [CONNECTIONS] [STREAMS]     (defaults 10 64 256)
#   LOW_CPU="15;20;25;30" sets the CPU thresholds of the second run.
#   PROBE_NICE=-10 runs the probe at that nice level (a consumer on its own host does not wait
#   for a CPU behind h2load; on a 2-core machine the probe otherwise may).
#   FLOOD_NICE=19 (the default) runs the flood's h2load at that nice level: it takes the CPU
#   bsfd leaves, as a flood from other hosts would, instead of a fair share of bsfd's two
#   cores; FLOOD_NICE=0 measures the machine shared evenly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=${1:-10}
C=${2:-64}
M=${3:-256}
FLOOD_NICE=${FLOOD_NICE:-19}
DIR=$(mktemp -d /tmp/bsf-admission.XXXXXX)
trap 'bsfd_stop; wait 2>/dev/null; rm -rf "$DIR"' EXIT
metric() { curl -s "http://127.0.0.1:$OPS/metrics" | awk -v m="$1" '$1 == m {s += $2} END {print s + 0}'; }

FLOOD_PATH="/nbsf-management/v1/pcfBindings?ipv4Addr=10.0.0.5"
run() { # name extra-settings...
    local name=$1; shift
    local sbi; sbi=$(free_port); OPS=$(free_port)
    mkdir -p "$DIR/$name"
    bsfd_start "$DIR/$name" "$sbi" "$OPS" "$DIR/$name.log" "$@"
    "$LOAD" --target 127.0.0.1:$sbi --mode register --count 1000 --connections 2 --streams 32 \
        >/dev/null
    local cpu0 rss0; cpu0=$(cpu_s $PID); rss0=$(rss_kb $PID)
    nice -n "${PROBE_NICE:-0}" "$LOAD" --target 127.0.0.1:$sbi --mode discover \
        --count $((S * 200)) --start 7 --range 1 --connections 1 --streams 1 --rate 200 \
        --priority 1 --json \
        >"$DIR/probe" &
    local probe=$!
    nice -n "$FLOOD_NICE" h2load -c "$C" -m "$M" -D "$S" -t 1 \
        "http://127.0.0.1:$sbi$FLOOD_PATH" \
        >"$DIR/h2load" 2>&1 || true
    wait $probe || true # the probe exits 1 when not every answer was 2xx: the report says so
    local cpu1 rss1; cpu1=$(cpu_s $PID); rss1=$(rss_kb $PID)
    local shed; shed=$(metric 'ocbsf_http_congestion_message_reject_total{state="CONGESTED"}')
    echo "== $name ($*)"
    grep -E "^requests:|^status codes:|^finished in" "$DIR/h2load"
    local done_n; done_n=$(awk '/^requests:/ {print $6}' "$DIR/h2load")
    local per; per=$(echo "scale=3; ($cpu1 - $cpu0) * 1000000 / (${done_n:-0} + 1)" | bc)
    echo "bsfd CPU $(echo "$cpu1 - $cpu0" | bc) s over ${S} s; RSS ${rss0} -> ${rss1} KiB;" \
         "shed (CONGESTED) $shed; CPU per flood request ${per} us"
    eval "PER_$(echo "$name" | tr -c 'a-z0-9\n' '_')=$per"
    echo "probe $(cat "$DIR/probe")"
    bsfd_stop
}

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); flood at nice $FLOOD_NICE"
run admission-on
# CPU thresholds for what bsfd can get of this shared machine (the operator sets them from
# the planned capacity, seed 3.27): the flood then makes CONGESTED.
run admission-on-low-cpu "--set" "congestion.cpu_thresholds=${LOW_CPU:-15;20;25;30}"
run admission-off --set admission.enabled=false
FLOOD_PATH="/nbsf-management/v1/none" run not-found --set admission.enabled=false
echo "CPU per flood request: shed run ${PER_admission_on_low_cpu} us, 404 run ${PER_not_found} us" \
     "(HTTP/2, a routing miss and its ProblemDetails: dearer than a shed," \
     "no floor under it; the floor is admission-bench's empty 204 below)"
"$ROOT/build/bench/admission-bench" 200000 2>/dev/null
