#!/usr/bin/env bash
# One command from a fresh Debian machine to the whole test suite: installs what is missing,
# builds the release and the sanitizer (ASan+UBSan) flavours, runs the unit tests on both, the
# integration tests against the sanitizer build, and every fuzz target for a bounded time.
#   FUZZ_SECONDS=N   seconds per fuzz target (default 30; 0 skips fuzzing)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

step "dependencies"
scripts/install-deps.sh
scripts/kafka-fetch.sh   # the Kafka broker's jars (Maven Central), for the replication tests
scripts/h2spec-fetch.sh  # h2spec (Go module proxy; Debian has no package), for test_sbi_h2spec.py

step "code rules (function length, layering: docs/architecture.md)"
scripts/check-code-rules.sh

step "build (release, asan)"
scripts/build.sh release
scripts/build.sh asan
# What packagers and other compilers see: plain Release (-O3) with gcc, the default with clang.
step "build (plain Release with gcc, default with clang; warnings as errors)"
scripts/build.sh plain
scripts/build.sh clang

step "unit tests (release)"
ctest --test-dir build --output-on-failure
step "unit tests (asan)"
ctest --test-dir build-asan --output-on-failure

step "integration tests (asan build, HTTP/2 over loopback)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Most modules wait on timers and peers more than they compute: they run on
# INTEGRATION_JOBS pytest-xdist workers (a module stays on one worker, so its fixtures are
# shared as without xdist). Those marked serial in conftest.py bound latencies or rates and
# run afterwards on their own.
INTEGRATION_JOBS=${INTEGRATION_JOBS:-2}
export BSFD="$ROOT/build-asan/bsfd/bsfd" BSFCTL="$ROOT/build-asan/bsfctl/bsfctl"
/usr/bin/python3 -m pytest -q -p no:cacheprovider -n "$INTEGRATION_JOBS" --dist loadfile \
  -m "not serial" tests/integration
/usr/bin/python3 -m pytest -q -p no:cacheprovider -m serial tests/integration

if [ "$FUZZ_SECONDS" -gt 0 ]; then
  step "fuzzing (${FUZZ_SECONDS}s per target)"
  scripts/build.sh fuzz
  tests/fuzz/run.sh "$ROOT/build-fuzz" "$FUZZ_SECONDS"
fi

step "all tests passed"
