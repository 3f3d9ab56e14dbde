#!/usr/bin/env bash
# Issue 14 §8: a registration flood (bsf-load, C connections x M streams of new bindings,
# far over what the store's writer can commit) beside a moderate discovery load (h2load,
# 4 connections x 8 streams) and the priority-1 probe (bsf-load --priority 1: one discovery
# every 5 ms on its own connection). The flood fills the pending requests; pending
# thresholds the machine can reach (PENDING, DOC;L1;L2;CONGESTED) make L2, where
# registrations (priority 20) are shed and discoveries (15) are not. Run once with admission
# control and once with admission.enabled=false.
# Reports: registrations answered 201 / shed 503, discoveries' statuses and rate, the probe's
# answered share and latency, bsfd's CPU and RSS.
#
#   bench/admission_reg.sh [SECONDS] [CONNECTIONS] [STREAMS]     (defaults 8 16 64)
#   PENDING="40;80;120;100000" sets the pending thresholds.
#   FLOOD_NICE=19 (the default) runs the flood and the discovery load at that nice level (as
#   from other hosts: they take the CPU bsfd leaves); FLOOD_NICE=0 shares the machine evenly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=${1:-8}
C=${2:-16}
M=${3:-64}
FLOOD_NICE=${FLOOD_NICE:-19}
DIR=$(mktemp -d /tmp/bsf-admission-reg.XXXXXX)
trap 'bsfd_stop; wait 2>/dev/null; rm -rf "$DIR"' EXIT

run() { # name extra-settings...
    local name=$1; shift
    local sbi; sbi=$(free_port); OPS=$(free_port)
    mkdir -p "$DIR/$name"
    bsfd_start "$DIR/$name" "$sbi" "$OPS" "$DIR/$name.log" \
        --set congestion.pending_thresholds="${PENDING:-40;80;120;100000}" "$@"
    "$LOAD" --target 127.0.0.1:$sbi --mode register --count 1000 --connections 2 --streams 32 \
        >/dev/null
    local cpu0 rss0; cpu0=$(cpu_s $PID); rss0=$(rss_kb $PID)
    "$LOAD" --target 127.0.0.1:$sbi --mode discover --count $((S * 200)) \
        --start 7 --range 1 --connections 1 --streams 1 --rate 200 --priority 1 --json \
        >"$DIR/probe" &
    local probe=$!
    nice -n "$FLOOD_NICE" h2load -c 4 -m 8 -D "$S" -t 1 \
        "http://127.0.0.1:$sbi/nbsf-management/v1/pcfBindings?ipv4Addr=10.0.0.5" \
        >"$DIR/h2load" 2>&1 &
    local disc=$!
    timeout -s INT "$((S + 5))" nice -n "$FLOOD_NICE" "$LOAD" --target 127.0.0.1:$sbi \
        --mode register --json \
        --start 100000 --count 100000000 --connections "$C" --streams "$M" \
        >"$DIR/flood" 2>/dev/null &
    local flood=$!
    sleep "$S"; kill -INT $flood 2>/dev/null || true
    wait $probe || true; wait $disc; wait $flood 2>/dev/null || true
    local cpu1 rss1; cpu1=$(cpu_s $PID); rss1=$(rss_kb $PID)
    echo "== $name ($*)"
    grep -E "^requests:|^status codes:|^finished in" "$DIR/h2load" | sed 's/^/discoveries /'
    echo "bsfd CPU $(echo "$cpu1 - $cpu0" | bc) s over ${S} s; RSS ${rss0} -> ${rss1} KiB"
    echo "answered (bsfd's counters, shed = discards by state):"
    curl -s "http://127.0.0.1:$OPS/metrics" |
        grep -E '^(bsf_sbi_responses_total|ocbsf_http_congestion_message_reject_total)' |
        awk '$2 > 0 {print "  " $0}'
    echo "probe $(cat "$DIR/probe")"
    bsfd_stop
}

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); loads at nice $FLOOD_NICE"
run admission-on
run admission-off --set admission.enabled=false
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
