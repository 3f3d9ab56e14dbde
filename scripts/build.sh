#!/usr/bin/env bash
# Configures and builds one flavour of the tree.
#   scripts/build.sh            release build in build/
#   scripts/build.sh asan       AddressSanitizer + UBSan build in build-asan/
#   scripts/build.sh fuzz       libFuzzer targets (clang) in build-fuzz/
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
case "$flavour" in
  release) dir=build;      opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    dir=build-asan; opts=(-DCMAKE_BUILD_TYPE=Debug -DBSF_SANITIZE=ON) ;;
  fuzz)    dir=build-fuzz; opts=(-DCMAKE_BUILD_TYPE=Debug -DBSF_FUZZ=ON -DBSF_TESTS=OFF
                                 -DCMAKE_C_COMPILER=clang) ;;
  *) echo "usage: $0 [release|asan|fuzz]" >&2; exit 2 ;;
esac
cmake -S "$ROOT" -B "$ROOT/$dir" -G Ninja "${opts[@]}" >/dev/null
ninja -C "$ROOT/$dir" >/dev/null
echo "$ROOT/$dir"
