#!/usr/bin/env bash
# Regenerates the key table of docs/configuration.md from `bsfd --config-reference`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bsfd=${1:-$ROOT/build/bsfd/bsfd}
doc=$ROOT/docs/configuration.md
head=$(sed '/^| key | type |/,$d' "$doc")
{ printf '%s\n' "$head"; "$bsfd" --config-reference; } > "$doc.tmp"
mv "$doc.tmp" "$doc"
