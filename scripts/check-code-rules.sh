#!/usr/bin/env bash
# The code rules of docs/architecture.md ("Code rules") that a machine can check, over the
# files git tracks:
#   - no function outside tests/ is longer than 100 lines (universal-ctags gives each
#     function's first and last line);
#   - core/ includes no LMDB, HTTP/2, libuv, Kafka or Diameter header (msgpack is its format);
#   - gateways/ and feed/ include no <lmdb.h> (they read through engine/);
#   - common/ includes nothing of core/.
# Prints every breach and exits 1 when there is one, 0 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
MAX_LINES=${MAX_LINES:-100}
fail=0

breach() { echo "code rules: $*" >&2; fail=1; }

long=$(git ls-files '*.c' | grep -v '^tests/' |
       ctags --languages=C --kinds-C=f --fields=+ne -o - -L - |
       awk -F'\t' -v max="$MAX_LINES" '{
           line = ""; end = ""
           for (i = 4; i <= NF; i++) {
               if ($i ~ /^line:/) line = substr($i, 6)
               if ($i ~ /^end:/) end = substr($i, 5)
           }
           if (line != "" && end != "" && end - line + 1 > max)
               printf "%s:%s %s is %d lines (at most %d)\n", $2, line, $1, end - line + 1, max
       }')
[ -z "$long" ] || breach "functions too long:"$'\n'"$long"

inc() { # pattern files... : the lines of the files that include what the pattern matches
    local pattern=$1; shift
    [ $# -eq 0 ] || grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*$pattern" "$@" || true
}
mapfile -t core < <(git ls-files 'core/*.c' 'core/*.h')
mapfile -t gw < <(git ls-files 'gateways/*.c' 'gateways/*.h' 'feed/*.c' 'feed/*.h')
mapfile -t common < <(git ls-files 'common/*.c' 'common/*.h')
found=$(inc '<(lmdb|nghttp2/|uv|librdkafka/|freeDiameter/)' "${core[@]}")
[ -z "$found" ] || breach "core/ includes an I/O library:"$'\n'"$found"
found=$(inc '<lmdb\.h>' "${gw[@]}")
[ -z "$found" ] || breach "gateways/ or feed/ include LMDB (read through engine/):"$'\n'"$found"
found=$(inc '"core/' "${common[@]}")
[ -z "$found" ] || breach "common/ depends on core/:"$'\n'"$found"

[ "$fail" -eq 0 ] && echo "code rules: ok (functions <= $MAX_LINES lines, layering)"
exit "$fail"
