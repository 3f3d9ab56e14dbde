#!/usr/bin/env bash
# Fetch the jars of the test Kafka broker from Maven Central into
# build/kafka-libs/ (repo-relative), using tools/kafka/pom.xml.
#
# usage: scripts/kafka-fetch.sh [--force] [extra mvn args...]
#   --force   fetch again even if build/kafka-libs/ is complete
#   extra mvn args are passed to mvn as-is, e.g.
#             -Dmaven.repo.local=/tmp/m2-fresh   (prove it works from scratch)
#             -o                                 (offline, from ~/.m2 only)
#
# Idempotent: does nothing when build/kafka-libs/ holds a complete copy made
# from the current pom.xml (checked through build/kafka-libs/.complete, which
# is written last and records the pom's checksum and every jar's name and size).
# Works from any cwd and from an empty ~/.m2 (the plugin version is explicit).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POM="$ROOT/tools/kafka/pom.xml"
LIBS="$ROOT/build/kafka-libs"
STAMP="$LIBS/.complete"
# Maven 3.8.7 binds no default version for this plugin when it is called by
# its full name; pin one (3.11.0 verified with Maven 3.8.7 and an empty repo).
DEP_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.11.0

log() { echo "kafka-fetch: $*" >&2; }

force=0
if [[ ${1:-} == --force ]]; then force=1; shift; fi

# The stamp's first line identifies the pom; the rest is "size name" per jar.
pom_sum=$(sha256sum "$POM" | cut -d' ' -f1)

is_complete() {
    [[ -f $STAMP ]] || return 1
    [[ $(head -n1 "$STAMP") == "pom $pom_sum" ]] || return 1
    local size name n=0
    while read -r size name; do
        [[ -f $LIBS/$name && $(stat -c %s "$LIBS/$name") == "$size" ]] || return 1
        n=$((n + 1))
    done < <(tail -n +2 "$STAMP")
    (( n > 0 ))
}

summary() {
    local n
    n=$(find "$LIBS" -maxdepth 1 -name '*.jar' | wc -l)
    log "$n jars, $(du -sh "$LIBS" | cut -f1) in ${LIBS#"$ROOT"/}"
}

command -v mvn >/dev/null || { log "mvn not found (apt-get install maven)"; exit 1; }
mkdir -p "$ROOT/build"

# Serialise concurrent runs (e.g. two test jobs starting at once).
exec 9>"$ROOT/build/.kafka-fetch.lock"
flock 9

if (( !force )) && is_complete; then
    log "up to date"
    summary
    exit 0
fi

# Copy into a scratch dir and swap it in only when complete, so an interrupted
# download never leaves a half-filled build/kafka-libs/ that looks usable.
tmp="$ROOT/build/kafka-libs.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
log "fetching broker jars (${DEP_PLUGIN##*:} copy-dependencies, pom ${POM#"$ROOT"/})"
# -B batch mode, -q quiet, -C fail on checksum mismatch (default is only a
# warning). jansi.noreset: Maven 3.8's console library otherwise prints stray
# ESC[0m sequences even in batch mode. All mvn output goes to stderr.
MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true" \
mvn -B -q -C -f "$POM" "$@" \
    "$DEP_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime \
    -DoutputDirectory="$tmp" >&2

# Sanity: the two jars the broker script cannot do without.
for want in 'kafka_2.13-*.jar' 'log4j-slf4j-impl-*.jar'; do
    compgen -G "$tmp/$want" >/dev/null || { log "missing $want after copy"; exit 1; }
done

{
    echo "pom $pom_sum"
    (cd "$tmp" && stat -c '%s %n' -- *.jar)
} > "$tmp/.complete.new"
mv "$tmp/.complete.new" "$tmp/.complete"

rm -rf "$LIBS"
mv -T "$tmp" "$LIBS"
trap - EXIT
summary
