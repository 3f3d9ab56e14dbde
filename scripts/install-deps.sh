#!/usr/bin/env bash
# Installs the Debian packages the BSF needs. Idempotent: only what is missing is installed.
# Uses sudo when not run as root.
#   scripts/install-deps.sh        build, run and test (compilers, test peers, Kafka, promtool)
#   scripts/install-deps.sh run    build and run only (scripts/run.sh)
set -euo pipefail
profile=${1:-all}

# What building and running bsfd needs.
packages=(
  build-essential cmake ninja-build pkg-config
  libnghttp2-dev libuv1-dev liblmdb-dev libmsgpack-dev libzstd-dev
  libjansson-dev libyajl-dev libyaml-dev libmicrohttpd-dev libgnutls28-dev libssl-dev uuid-dev
  libmimalloc-dev libsystemd-dev
  librdkafka-dev
  libfreediameter-dev freediameter-extensions
)
# What the tests, the fuzzers and the benchmarks add.
test_packages=(
  lmdb-utils kcat freediameterd universal-ctags
  libcmocka-dev clang libclang-rt-14-dev
  nghttp2-client nghttp2-server curl tshark prometheus openssl
  python3 python3-pytest python3-pytest-xdist python3-httpx python3-h2 python3-jsonschema python3-yaml
  python3-cryptography
  maven default-jre-headless
)
case $profile in
  all) packages+=("${test_packages[@]}") ;;
  run) ;;
  *) echo "usage: $0 [run]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A JRE may already come from elsewhere (e.g. a Temurin JDK): do not install Debian's then.
if command -v java >/dev/null 2>&1; then
  missing=("${missing[@]/default-jre-headless}")
fi
if command -v mvn >/dev/null 2>&1; then
  missing=("${missing[@]/maven}")
fi
read -r -a missing <<< "${missing[*]}"
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
