#!/usr/bin/env bash
# Issue 13 §7: discovery over TLS against h2c (bsfd CPU per request, goal <= 30 % more) and
# full TLS handshakes per second on one core (goal >= 2,000/s). See bench/sbi_tls.py.
#   bench/sbi_tls.sh [RUNS] [REQUESTS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v h2load >/dev/null || { echo "h2load (nghttp2-client) is needed" >&2; exit 1; }
exec /usr/bin/python3 "$ROOT/bench/sbi_tls.py" "$ROOT/build/bsfd/bsfd" "${1:-3}" "${2:-100000}"
