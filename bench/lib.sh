# What the bench scripts share; each sources it after `set -euo pipefail`:
#   . "$(dirname "$0")/lib.sh"
# It sets ROOT (this checkout), the builds BSFD, LOAD (bsf-load) and BSFCTL (build/ unless the
# environment names others), and hz (clock ticks per second, the unit of the CPU times in
# /proc/PID/stat).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BSFD=${BSFD:-$ROOT/build/bsfd/bsfd}
LOAD=${LOAD:-$ROOT/build/bench/bsf-load}
BSFCTL=${BSFCTL:-$ROOT/build/bsfctl/bsfctl}
hz=$(getconf CLK_TCK)

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# utime+stime of process $1 in ticks ($hz a second).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The same in seconds.
cpu_s() { awk -v hz="$hz" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
# The resident set of process $1 in KiB.
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

# bsfd_start STORE SBI_PORT OPS_PORT LOG [ARG...]: bsfd in the background on the store
# STORE, SBI and ops on 127.0.0.1 at those ports, no admin listener, log.level=warn (a later
# --set log.level=... among the ARGs wins), its stderr appended to LOG; returns once it is
# ready (polled every 5 ms, so that callers can time the start). Sets PID. Runs under the
# command prefix in the array BSFD_WRAP when that is set (a cgroup). When bsfd exits before
# it is ready, prints LOG and exits the script with 1.
PID=
bsfd_start() {
    local store=$1 sbi=$2 ops=$3 log=$4
    shift 4
    ${BSFD_WRAP[@]+"${BSFD_WRAP[@]}"} "$BSFD" --set store.path="$store" \
        --set sbi.listen="127.0.0.1:$sbi" --set ops.listen="127.0.0.1:$ops" \
        --set ops.admin_listen= --set log.level=warn "$@" 2>>"$log" &
    PID=$!
    until curl -sf "http://127.0.0.1:$ops/health/ready" >/dev/null; do
        kill -0 "$PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.005
    done
}

# Stops the bsfd of bsfd_start (SIGTERM) and waits for it; nothing when none runs. Fit for an
# EXIT trap.
bsfd_stop() {
    [ -n "$PID" ] || return 0
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=
}
