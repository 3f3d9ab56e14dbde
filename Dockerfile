# bsfd image: built on Debian 12 with the same packages as scripts/install-deps.sh, run on
# debian:bookworm-slim with only the runtime libraries, as an unprivileged user. The version is
# the project's (.git is not sent to the build).
#   docker build -t bsf .
#   docker run -p 8080:8080 -p 9090:9090 -v bsf-data:/var/lib/bsf bsf
# Kubernetes manifests: deploy/kubernetes/.

FROM debian:bookworm-slim AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        build-essential cmake ninja-build pkg-config ca-certificates \
        libnghttp2-dev libuv1-dev liblmdb-dev libmsgpack-dev libzstd-dev libjansson-dev libyajl-dev \
        libyaml-dev libmicrohttpd-dev libgnutls28-dev libssl-dev uuid-dev libmimalloc-dev \
        librdkafka-dev libfreediameter-dev libsystemd-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBSF_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX=/usr \
    && cmake --build /build \
    && DESTDIR=/install cmake --install /build

FROM debian:bookworm-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libnghttp2-14 libuv1 liblmdb0 libmsgpackc2 libzstd1 libjansson4 libyajl2 libyaml-0-2 \
        libmicrohttpd12 libgnutls30 libssl3 libuuid1 libmimalloc2.0 librdkafka1 \
        libfdcore6 libfdproto6 freediameter-extensions libsystemd0 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 bsf \
    && useradd --system --uid 10001 --gid bsf --home-dir /var/lib/bsf --shell /usr/sbin/nologin bsf \
    && install -d -o bsf -g bsf -m 0750 /var/lib/bsf
COPY --from=build /install/usr/bin/bsfd /install/usr/bin/bsfctl /usr/bin/
COPY --from=build /install/etc/bsf/bsf.yaml /etc/bsf/bsf.yaml
COPY --from=build /install/usr/share/doc/bsf /usr/share/doc/bsf
USER 10001:10001
WORKDIR /var/lib/bsf
VOLUME ["/var/lib/bsf"]
# SBI (h2c), ops (health, metrics), Diameter
EXPOSE 8080 9090 3868
# Health: GET :9090/health/live and /health/ready (the Kubernetes probes of deploy/kubernetes).
ENTRYPOINT ["/usr/bin/bsfd"]
CMD ["-c", "/etc/bsf/bsf.yaml"]
