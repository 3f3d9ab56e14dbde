#!/usr/bin/env bash
# Installs the Debian packages the BSF needs to build, run and test. Idempotent: only what is
# missing is installed. Uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libnghttp2-dev libuv1-dev liblmdb-dev lmdb-utils libmsgpack-dev libzstd-dev
  libjansson-dev libyaml-dev libmicrohttpd-dev libgnutls28-dev libssl-dev uuid-dev
  libmimalloc-dev
  librdkafka-dev kcat
  libfreediameter-dev freediameterd freediameter-extensions
  libcmocka-dev clang libclang-rt-14-dev
  nghttp2-client nghttp2-server curl tshark openssl
  python3 python3-pytest python3-httpx python3-h2 python3-jsonschema python3-yaml python3-cryptography
  maven default-jre-headless
)

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
