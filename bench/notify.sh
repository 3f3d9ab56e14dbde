#!/usr/bin/env bash
# Issue 11 §6 (notifications): see bench/notify.py. Short by default (this machine is shared).
#   bench/notify.sh [N] [RATE]     default N=5000 registrations and subscriptions, RATE=5000/s
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$ROOT/bench/notify.py" "$@"
