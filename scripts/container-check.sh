#!/usr/bin/env bash
# Builds the image of the Dockerfile without a registry and runs it (issue 15 §5):
#   1. debootstrap a minimal Debian 12 (bookworm, variant minbase) from the Debian archive and
#      import it as the local image debian:bookworm-slim (what both stages start FROM);
#   2. buildah bud the Dockerfile with that base (--pull=never);
#   3. in the image: `bsfd --version`, then bsfd on the installed /etc/bsf/bsf.yaml as the
#      image's user (10001), and GET /health/live and /health/ready on its ops port.
# Needs root, buildah and debootstrap (apt-get install -y buildah debootstrap) and the Debian
# archive. Takes a while (the build stage installs the toolchain and compiles the tree): it is
# not part of CI. Work files go to a temporary directory (BSF_CONTAINER_WORK to keep them);
# the images stay in buildah's storage (vfs driver, chroot isolation: no daemon, no overlay).
#   scripts/container-check.sh            build and check; prints "container-check: ok"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "container-check: $*" >&2; exit 1; }
for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || fail "$tool missing (apt-get install -y buildah debootstrap)"
done
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, buildah's chroot isolation)"

work=${BSF_CONTAINER_WORK:-$(mktemp -d)}
[ -n "${BSF_CONTAINER_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mirror=${BSF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
bh=(buildah --storage-driver vfs)
export BUILDAH_ISOLATION=chroot
base=localhost/debian:bookworm-slim
image=localhost/bsf:check

# 1. the base image
if ! "${bh[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  rootfs=$work/rootfs
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  ctr=$("${bh[@]}" from scratch)
  mnt=$("${bh[@]}" mount "$ctr")
  cp -a "$rootfs"/. "$mnt"/
  "${bh[@]}" umount "$ctr" >/dev/null
  "${bh[@]}" config --cmd /bin/bash "$ctr"
  "${bh[@]}" commit --quiet "$ctr" "$base" >/dev/null
  "${bh[@]}" rm "$ctr" >/dev/null
fi

# 2. the image, both stages from that base
sed "s#^FROM debian:bookworm-slim#FROM $base#" "$ROOT/Dockerfile" > "$work/Dockerfile"
"${bh[@]}" bud --pull=never --layers=false -f "$work/Dockerfile" -t "$image" "$ROOT" \
  > "$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "the image does not build"; }

# 3. run it
ctr=$("${bh[@]}" from --pull=never "$image")
trap '"${bh[@]}" rm "$ctr" >/dev/null 2>&1 || true; [ -n "${BSF_CONTAINER_WORK:-}" ] || rm -rf "$work"' EXIT
version=$("${bh[@]}" run "$ctr" -- /usr/bin/bsfd --version)
case $version in "bsfd "[0-9]*) ;; *) fail "bsfd --version said: $version" ;; esac
user=$("${bh[@]}" inspect --type container --format '{{.OCIv1.Config.User}}' "$ctr")
[ "${user%%:*}" = 10001 ] || fail "the image runs as '$user', not 10001"
read -r port sbi admin < <(python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
# bsfd as the image starts it (its ENTRYPOINT and CMD), its ops listener moved to a free port of
# the host's loopback (host network), its store the sample's /var/lib/bsf (the image's volume)
"${bh[@]}" run --network host --user 10001:10001 --workingdir /var/lib/bsf "$ctr" -- \
  /usr/bin/bsfd -c /etc/bsf/bsf.yaml --set "ops.listen=127.0.0.1:$port" \
  --set "ops.admin_listen=127.0.0.1:$admin" --set "sbi.listen=127.0.0.1:$sbi" \
  > "$work/bsfd.log" 2>&1 &
pid=$!
ready=
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/health/ready" > "$work/ready.json" 2>/dev/null; then
    ready=1; break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
live=$(curl -fsS "http://127.0.0.1:$port/health/live" 2>/dev/null || true)
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
[ -n "$ready" ] || { tail -20 "$work/bsfd.log" >&2; fail "bsfd in the image never became ready"; }
grep -q '"status":"ready"' "$work/ready.json" || fail "ready answer: $(cat "$work/ready.json")"
case $live in *'"status":"alive"'*) ;; *) fail "live answer: $live" ;; esac
echo "container-check: ok ($version; /health/live and /health/ready answered in the image)"
