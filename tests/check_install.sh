#!/usr/bin/env bash
# `cmake --install` into a DESTDIR puts every file in place (issue 15 §5): bsfd and bsfctl
# that run, the sample configuration (which bsfd accepts), the docs, the dashboards and rules,
# and a systemd unit that `systemd-analyze verify` accepts without a warning and whose
# hardening `systemd-analyze security` rates as OK (exposure below 3).
set -euo pipefail
build=${1:?build directory}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$build" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
root=$dest$prefix
fail() { echo "check_install: $*" >&2; exit 1; }

for f in bin/bsfd bin/bsfctl; do [ -x "$root/$f" ] || fail "$f missing or not executable"; done
for f in share/doc/bsf/README.md share/doc/bsf/operations.md share/doc/bsf/configuration.md \
         share/bsf/grafana/bsf-dashboard.json share/bsf/prometheus/bsf-rules.yml; do
  [ -s "$root/$f" ] || fail "$f missing"
done
# The sample configuration where an administrator looks for it (GNUInstallDirs' full sysconf
# directory): /etc/bsf with the prefix /usr (never /usr/etc), /etc/opt/... under /opt/...,
# PREFIX/etc/bsf else; an absolute CMAKE_INSTALL_SYSCONFDIR as it is.
sysconf=$(sed -n 's/^CMAKE_INSTALL_SYSCONFDIR:PATH=//p' "$build/CMakeCache.txt")
case $sysconf in
  /*) want=$sysconf ;;
  *) case $prefix in
       /usr) want=/$sysconf ;;
       /opt/*) want=/$sysconf$prefix ;;
       *) want=$prefix/$sysconf ;;
     esac ;;
esac
conf=$dest$want/bsf/bsf.yaml
[ -s "$conf" ] || fail "bsf.yaml missing ($conf)"
found=$(cd "$dest" && find . -name bsf.yaml -path '*/bsf/bsf.yaml' | sed 's/^\.//')
[ "$found" = "$want/bsf/bsf.yaml" ] || fail "bsf.yaml installed as '$found', expected $want/bsf/bsf.yaml only"
grep -q '^# ' "$conf" || fail "bsf.yaml has no comments"
"$root/bin/bsfd" --version | grep -q '^bsfd [0-9]' || fail "bsfd --version"
"$root/bin/bsfctl" --version | grep -q '^bsfctl [0-9]' || fail "bsfctl --version"

unit_dir=$(sed -n 's/^BSF_SYSTEMD_UNIT_DIR:STRING=//p' "$build/CMakeCache.txt")
case $unit_dir in /*) unit=$dest$unit_dir/bsfd.service ;; *) unit=$root/$unit_dir/bsfd.service ;; esac
[ -s "$unit" ] || fail "bsfd.service missing ($unit)"
grep -q '^Type=notify$' "$unit" || fail "the unit is not Type=notify"
grep -q '^WatchdogSec=' "$unit" || fail "the unit has no watchdog"
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
[ "${exec_line%% *}" = "$prefix/bin/bsfd" ] || fail "ExecStart ($exec_line) is not the installed bsfd"
conf_in_unit=${exec_line##* }
[ "$dest$conf_in_unit" = "$conf" ] || fail "ExecStart's -c ($conf_in_unit) is not the installed bsf.yaml"

if command -v systemd-analyze >/dev/null; then
  # The unit as installed, its paths pointing into DESTDIR (verify checks the binary exists).
  check=$dest/verify
  mkdir -p "$check"
  sed "s#^ExecStart=$prefix#ExecStart=$root#; s# -c $conf_in_unit# -c $conf#" "$unit" > "$check/bsfd.service"
  out=$(systemd-analyze verify "$check/bsfd.service" 2>&1) || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify warns: $out"
  exposure=$(systemd-analyze security --offline=yes "$check/bsfd.service" 2>&1 |
             sed -n 's/.*Overall exposure level for bsfd.service: \([0-9.]*\).*/\1/p')
  [ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level"
  awk -v e="$exposure" 'BEGIN { exit !(e < 3.0) }' || fail "exposure $exposure is not below 3"
else
  echo "check_install: systemd-analyze not found, unit not verified" >&2
fi
echo "check_install: ok ($root)"
