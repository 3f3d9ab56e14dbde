#!/usr/bin/env bash
# Runs every fuzz target for a bounded time from its seed corpus.
#   tests/fuzz/run.sh BUILD_DIR SECONDS
# New inputs go to a scratch corpus (not committed); a crash stops the run, prints the
# sanitizer report and leaves the input as crash-* in the current directory.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
build=${1:?build dir}
seconds=${2:-30}
failed=0
for target in ${FUZZ_TARGETS:-binding_json discovery_query patch_json event_decode event_envelope \
    config config_json rx_avp sbi_uri problem_decode nrf_formats h2_request oauth2_token log_archive \
    ue_binding_json ue_query mbs_binding_json mbs_query xfcc audit_alternate sbi_oci}; do
  work=$(mktemp -d)
  maxlen=4096
  [ "$target" = h2_request ] && maxlen=16384 # a preface, SETTINGS and a few requests
  out=$(mktemp)
  cp -r "$HERE/corpus/$target/." "$work/" 2>/dev/null
  "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 "$work" >"$out" 2>&1
  status=$?
  runs=$(grep -m1 '^stat::number_of_executed_units' "$out" | awk '{print $2}')
  echo "fuzz_$target: ${seconds}s, ${runs:-?} runs, exit $status"
  if [ "$status" -ne 0 ]; then
    grep -E -A30 '==[0-9]+==ERROR|runtime error|SUMMARY' "$out" | head -60
    failed=1
  fi
  rm -rf "$work" "$out"
done
exit $failed
