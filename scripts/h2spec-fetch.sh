#!/usr/bin/env bash
# Builds h2spec (the HTTP/2 conformance suite, github.com/summerwind/h2spec; Debian does not
# package it) from the Go module proxy into build/tools/h2spec, at the versions pinned in
# tools/h2spec/go.mod and go.sum. The integration test test_sbi_h2spec.py runs it.
#
# usage: scripts/h2spec-fetch.sh [--force]
# Idempotent: does nothing when build/tools/h2spec was built from the current go.sum.
# Needs Go >= the version in tools/h2spec/go.mod (golang.org/x/net sets it).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/tools/h2spec"
OUT="$ROOT/build/tools"
STAMP="$OUT/h2spec.sum"

force=0
if [[ ${1:-} == --force ]]; then force=1; fi
if [[ $force == 0 && -x $OUT/h2spec && -f $STAMP ]] && cmp -s "$STAMP" "$SRC/go.sum"; then
  exit 0
fi
GO=$(command -v go || true)
if [[ -z $GO && -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go; fi
if [[ -z $GO ]]; then
  echo "h2spec-fetch: no Go toolchain (go) on PATH or in /usr/local/go" >&2
  exit 1
fi
mkdir -p "$OUT"
echo "h2spec-fetch: building h2spec with $("$GO" version)" >&2
(cd "$SRC" && GOFLAGS=-mod=readonly "$GO" build -trimpath -o "$OUT/h2spec.tmp" \
   github.com/summerwind/h2spec/cmd/h2spec)
mv "$OUT/h2spec.tmp" "$OUT/h2spec"
cp "$SRC/go.sum" "$STAMP"
