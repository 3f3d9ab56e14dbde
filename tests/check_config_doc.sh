#!/usr/bin/env bash
# docs/configuration.md must carry exactly the table `bsfd --config-reference` prints.
set -euo pipefail
bsfd=${1:?path to bsfd}
doc=${2:?path to docs/configuration.md}
expected=$("$bsfd" --config-reference)
actual=$(sed -n '/^| key | type |/,$p' "$doc")
if [ "$expected" != "$actual" ]; then
  echo "docs/configuration.md is out of date; regenerate the table with: bsfd --config-reference" >&2
  diff <(echo "$expected") <(echo "$actual") >&2 || true
  exit 1
fi
