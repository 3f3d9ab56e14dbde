#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft, broker+controller in one
# JVM) for tests, from the jars fetched by scripts/kafka-fetch.sh.
#
# usage:
#   kafka-broker.sh start  DIR [PORT] [CONTROLLER_PORT]
#       Format DIR (first time only), start the broker in the background and
#       wait until it serves metadata (kcat -L). Prints the bootstrap address
#       (127.0.0.1:PORT) on stdout; everything else goes to stderr.
#       Ports default to the ones of the previous start on DIR, else 19092 and
#       PORT+1. Starting again on a formatted DIR keeps its data.
#   kafka-broker.sh stop   DIR   SIGTERM (clean shutdown), SIGKILL after 30 s
#   kafka-broker.sh kill   DIR   SIGKILL at once (crash / outage tests)
#   kafka-broker.sh status DIR   exit 0: serving, 1: running but not serving,
#                                3: not running
#
# DIR layout: server.properties (generated from tools/kafka/server.properties),
# data/ (log.dirs), kafka.pid, ports, kafka.log (current run), kafka.log.1
# (previous run), format.log.
#
# Environment (all optional):
#   KAFKA_READY_TIMEOUT  seconds to wait for readiness (default 90)
#   KAFKA_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL (default 30)
#   KAFKA_HEAP           max heap (default 256m)
#   KAFKA_JVM_OPTS       extra JVM options, appended
#   JAVA                 java binary (default: java on PATH; needs Java >= 17)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIBS="$ROOT/build/kafka-libs"
TEMPLATE="$ROOT/tools/kafka/server.properties"
LOG4J2="$ROOT/tools/kafka/log4j2.properties"
HOST=127.0.0.1

READY_TIMEOUT=${KAFKA_READY_TIMEOUT:-90}
STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-30}
JAVA=${JAVA:-java}

log() { echo "kafka-broker: $*" >&2; }
die() { log "$*"; exit 1; }
now_ms() { date +%s%3N; }

usage() {
    sed -n '/^# usage:/,/^#$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# Small, quick-starting JVM: tests need no throughput. SerialGC and C1 only
# (TieredStopAtLevel=1) cut start-up CPU on a 2-core machine; -XX:-UsePerfData
# avoids the /tmp/hsperfdata_* file; a broker that runs out of heap should die
# visibly instead of limping on.
jvm_opts() {
    local heap=${KAFKA_HEAP:-256m}
    echo "-Xms64m -Xmx$heap -XX:+UseSerialGC -XX:TieredStopAtLevel=1" \
         "-XX:-UsePerfData -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true" \
         "-Dlog4j2.configurationFile=$LOG4J2 ${KAFKA_JVM_OPTS:-}"
}

# ---------------------------------------------------------------- helpers ---

set_dir() {
    [[ -n ${1:-} ]] || usage
    mkdir -p "$1"
    DIR=$(cd "$1" && pwd)
    CONF="$DIR/server.properties"
    DATA="$DIR/data"
    PIDFILE="$DIR/kafka.pid"
    LOGFILE="$DIR/kafka.log"
    PORTSFILE="$DIR/ports"
}

# PID of this DIR's broker if it is alive, else nothing (and status 1). Checks
# the command line too, so a stale pidfile whose PID was reused, or a zombie,
# does not count.
broker_pid() {
    local pid state
    [[ -f $PIDFILE ]] || return 1
    pid=$(<"$PIDFILE")
    [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [[ $state != Z ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "kafka.Kafka $CONF" || return 1
    echo "$pid"
}

wait_gone() {   # pid timeout_s -> 0 when gone
    local pid=$1 deadline=$(( $(now_ms) + $2 * 1000 ))
    while (( $(now_ms) < deadline )); do
        broker_pid >/dev/null || return 0
        sleep 0.1
    done
    ! broker_pid >/dev/null
}

read_ports() {  # sets PORT and CPORT from DIR/ports, if present
    if [[ -f $PORTSFILE ]]; then read -r PORT CPORT <"$PORTSFILE"; fi
}

port_in_use() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# Serving metadata on the client listener = started, registered with its own
# controller and unfenced (the listener accepts requests only after that).
serving() {
    kcat -b "$HOST:$PORT" -L -m 2 2>/dev/null | grep -q "broker 1 at $HOST:$PORT"
}

fail_with_log() {
    log "$1"
    if [[ -f $LOGFILE ]]; then
        log "last lines of $LOGFILE:"
        tail -n 40 "$LOGFILE" >&2
    fi
    exit 1
}

random_cluster_id() {
    # 16 random bytes, base64url without padding = 22 chars (Kafka's Uuid
    # format). Avoid a leading '-', which argument parsers take for an option.
    local id
    while :; do
        id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
        [[ $id != -* ]] && { echo "$id"; return; }
    done
}

# --------------------------------------------------------------- commands ---

cmd_start() {
    set_dir "${1:-}"
    PORT=19092; CPORT=19093
    read_ports                      # previous start's ports, if any
    if [[ -n ${2:-} ]]; then PORT=$2; CPORT=${3:-$(($2 + 1))}; fi
    [[ $PORT =~ ^[0-9]+$ && $CPORT =~ ^[0-9]+$ && $PORT != "$CPORT" ]] \
        || die "bad ports: $PORT $CPORT"

    local pid
    if pid=$(broker_pid); then
        local want=$PORT
        read_ports
        [[ $want == "$PORT" ]] || die "already running (pid $pid) on port $PORT, not $want"
        log "already running (pid $pid) on $HOST:$PORT"
        serving || die "running but not serving metadata; see $LOGFILE"
        echo "$HOST:$PORT"
        return 0
    fi
    rm -f "$PIDFILE"

    [[ -f $LIBS/.complete ]] || die "no broker jars in $LIBS: run scripts/kafka-fetch.sh first"
    command -v kcat >/dev/null || die "kcat not found (apt-get install kcat)"
    for p in "$PORT" "$CPORT"; do
        port_in_use "$p" && die "port $p on $HOST is already in use"
    done

    # Regenerate the config on every start (template edits and port changes
    # apply to an existing DIR; the data does not depend on the ports).
    sed -e "s|@DATA_DIR@|$DATA|g" -e "s|@PORT@|$PORT|g" -e "s|@CONTROLLER_PORT@|$CPORT|g" \
        "$TEMPLATE" >"$CONF.tmp"
    mv "$CONF.tmp" "$CONF"
    echo "$PORT $CPORT" >"$PORTSFILE"

    local t0 cp
    t0=$(now_ms)
    cp="$LIBS/*"     # the JVM expands the wildcard itself
    # $(jvm_opts) is unquoted on purpose: one word per option.
    # shellcheck disable=SC2046
    if [[ ! -f $DATA/meta.properties ]]; then
        # --standalone: this node is the single voter of a dynamic KRaft quorum
        # (needs controller.quorum.bootstrap.servers, no controller.quorum.voters).
        local id
        id=$(random_cluster_id)
        if ! "$JAVA" $(jvm_opts) -cp "$cp" kafka.tools.StorageTool format --standalone \
                -t "$id" -c "$CONF" >"$DIR/format.log" 2>&1; then
            cat "$DIR/format.log" >&2
            die "formatting $DATA failed"
        fi
        log "formatted $DATA (cluster id $id) in $(( $(now_ms) - t0 )) ms"
    fi

    [[ -f $LOGFILE ]] && mv -f "$LOGFILE" "$LOGFILE.1"
    # Detached from our stdin/stdout so that callers capturing our output
    # ($(kafka-broker.sh start ...)) do not wait for the broker to exit.
    # shellcheck disable=SC2046
    nohup "$JAVA" $(jvm_opts) -cp "$cp" kafka.Kafka "$CONF" \
        </dev/null >"$LOGFILE" 2>&1 &
    pid=$!
    echo "$pid" >"$PIDFILE"

    local deadline=$(( t0 + READY_TIMEOUT * 1000 ))
    until serving; do
        broker_pid >/dev/null || fail_with_log "broker exited during start-up"
        if (( $(now_ms) > deadline )); then
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true     # our child: reap it, free its ports
            rm -f "$PIDFILE"
            fail_with_log "not serving metadata after ${READY_TIMEOUT}s; killed it"
        fi
        sleep 0.2
    done
    log "ready in $(( $(now_ms) - t0 )) ms (pid $pid, data $DATA)"
    echo "$HOST:$PORT"
}

cmd_stop() {
    set_dir "${1:-}"
    local pid
    if ! pid=$(broker_pid); then
        rm -f "$PIDFILE"; log "not running"; return 0
    fi
    local t0; t0=$(now_ms)
    # kafka.Kafka's shutdown hook does a controlled shutdown on SIGTERM.
    kill -TERM "$pid" 2>/dev/null || true
    if wait_gone "$pid" "$STOP_TIMEOUT"; then
        log "stopped (pid $pid) in $(( $(now_ms) - t0 )) ms"
    else
        log "still running after ${STOP_TIMEOUT}s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        wait_gone "$pid" 10 || die "pid $pid survived SIGKILL"
    fi
    rm -f "$PIDFILE"
}

cmd_kill() {
    set_dir "${1:-}"
    local pid
    if ! pid=$(broker_pid); then
        rm -f "$PIDFILE"; log "not running"; return 0
    fi
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 10 || die "pid $pid survived SIGKILL"
    rm -f "$PIDFILE"
    log "killed (pid $pid)"
}

cmd_status() {
    set_dir "${1:-}"
    local pid
    if ! pid=$(broker_pid); then
        echo "stopped"; return 3
    fi
    read_ports
    if serving; then
        echo "running pid $pid, serving on $HOST:$PORT"
    else
        echo "running pid $pid, NOT serving on $HOST:$PORT"; return 1
    fi
}

case ${1:-} in
    start)  shift; cmd_start "$@" ;;
    stop)   shift; cmd_stop "$@" ;;
    kill)   shift; cmd_kill "$@" ;;
    status) shift; cmd_status "$@" ;;
    *)      usage ;;
esac
