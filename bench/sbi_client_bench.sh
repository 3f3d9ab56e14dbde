#!/usr/bin/env bash
# Egress requests/s and CPU per request of the SBI client (issue 10 §6) against nghttpd
# (Debian nghttp2-server) on loopback serving a 2-byte file, h2c then TLS (ALPN h2).
#   bench/sbi_client_bench.sh [COUNT] [INFLIGHT]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-200000}
inflight=${2:-256}
bench=$ROOT/build/bench/sbi-client-bench
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/root"
printf 'ok' > "$work/root/x"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1=$(port); p2=$(port)
nghttpd --no-tls -d "$work/root" "$p1" & 
nghttpd -d "$work/root" "$p2" "$work/key.pem" "$work/cert.pem" &
sleep 0.5
echo "== h2c"
"$bench" --uri "http://127.0.0.1:$p1/x" --count "$count" --inflight "$inflight" ${BENCH_ARGS:-}
echo "== TLS"
"$bench" --uri "https://127.0.0.1:$p2/x" --count "$count" --inflight "$inflight" \
  --ca "$work/cert.pem" ${BENCH_ARGS:-}
