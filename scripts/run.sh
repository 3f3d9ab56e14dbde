#!/usr/bin/env bash
# One command from a fresh Debian machine to a running BSF: installs what building and running
# need (not the test toolchain: scripts/test.sh adds it), builds, and runs bsfd on its embedded
# default (h2c on 127.0.0.1:8080, store in ./data, ops on 127.0.0.1:9090). Extra arguments go
# to bsfd (e.g. --set sbi.listen=0.0.0.0:8080).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/install-deps.sh" run
"$ROOT/scripts/build.sh" run >/dev/null
exec "$ROOT/build-run/bsfd/bsfd" "$@"
