#!/usr/bin/env bash
# Builds bsfd and bsfctl of the previous release (the commit below) in build-prev/, for the
# upgrade tests (tests/integration/test_upgrade*.py) and to regenerate their fixture store
# (tests/integration/fixtures/upgrade/regenerate.sh).
#   scripts/build-previous-release.sh [COMMIT]   prints the build directory
# The previous release is main as the fourth session left it (merge of s3-tls, 0248567):
# schema 3, events version 1, before any of issue 15's upgrade work. The source is taken
# with `git archive`, so no worktree is registered; a build already made is reused.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
commit=${1:-0248567}
full=$(git -C "$ROOT" rev-parse --verify "$commit^{commit}")
out="$ROOT/build-prev/${full:0:12}"
# One build at a time: the upgrade test modules run on parallel pytest workers and each may
# be the first to ask; the others wait here and then reuse the build.
mkdir -p "$ROOT/build-prev"
exec 9>"$ROOT/build-prev/.lock"
flock 9
if [ -x "$out/build/bsfd/bsfd" ] && [ -x "$out/build/bsfctl/bsfctl" ]; then
  echo "$out/build"; exit 0
fi
rm -rf "$out"; mkdir -p "$out/src"
git -C "$ROOT" archive "$full" | tar -x -C "$out/src"
if ! log=$(cmake -S "$out/src" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
             -DBSF_TESTS=OFF 2>&1 && ninja -C "$out/build" bsfd bsfctl 2>&1); then
  printf '%s\n' "$log" >&2; echo "build of $commit failed" >&2; exit 1
fi
echo "$out/build"
