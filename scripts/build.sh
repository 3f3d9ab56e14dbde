#!/usr/bin/env bash
# Configures and builds one flavour of the tree.
#   scripts/build.sh            release build in build/
#   scripts/build.sh asan       AddressSanitizer + UBSan build in build-asan/
#   scripts/build.sh fuzz       libFuzzer targets (clang) in build-fuzz/
#   scripts/build.sh plain      CMake's plain Release (-O3, gcc) in build-plain/, as packagers build
#   scripts/build.sh clang      the default build type with clang in build-clang/
#   scripts/build.sh run        bsfd and bsfctl only (no tests: no cmocka needed) in build-run/
# Every flavour here treats warnings as errors (BSF_WERROR); a bare cmake build does not.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
case "$flavour" in
  release) dir=build;       opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    dir=build-asan;  opts=(-DCMAKE_BUILD_TYPE=Debug -DBSF_SANITIZE=ON) ;;
  fuzz)    dir=build-fuzz;  opts=(-DCMAKE_BUILD_TYPE=Debug -DBSF_FUZZ=ON -DBSF_TESTS=OFF
                                  -DCMAKE_C_COMPILER=clang) ;;
  plain)   dir=build-plain; opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc) ;;
  clang)   dir=build-clang; opts=(-DCMAKE_C_COMPILER=clang) ;;
  run)     dir=build-run;   opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBSF_TESTS=OFF) ;;
  *) echo "usage: $0 [release|asan|fuzz|plain|clang|run]" >&2; exit 2 ;;
esac
opts+=(-DBSF_WERROR=ON)
# quiet when it works; the whole output (ninja prints errors on stdout) when it does not
if ! out=$(cmake -S "$ROOT" -B "$ROOT/$dir" -G Ninja "${opts[@]}" 2>&1 &&
           ninja -C "$ROOT/$dir" 2>&1); then
  printf '%s\n' "$out" >&2
  echo "build ($flavour) failed" >&2
  exit 1
fi
echo "$ROOT/$dir"
