"""Packaging (issue 15 §5): the sample configuration and the Kubernetes manifest's
configuration start a real bsfd, the manifest's probes name paths and the port the ops
endpoint serves, the image's runtime stage installs every library bsfd links (from ldd and
dpkg), as a non-root user, and the ops endpoint answers — not ready — while a Kafka site
catches up, so that the liveness probe passes and the readiness probe does not."""

import os
import pathlib
import re
import signal
import subprocess
import time

import httpx
import yaml

from conftest import BSFD, REPO, assert_no_sanitizer_report, free_ports, kafka_broker  # noqa: F401
from support import wait_until

SAMPLE = REPO / "deploy" / "bsf.yaml"
MANIFEST = REPO / "deploy" / "kubernetes" / "bsf.yaml"
DOCKERFILE = REPO / "Dockerfile"


def start_with_file(tmp_path, config_text, extra=()):
    """bsfd -c FILE with its listeners moved to free loopback ports; returns (process, ops url)."""
    path = tmp_path / "bsf.yaml"
    path.write_text(config_text)
    sbi, ops, admin = free_ports(3)
    store = tmp_path / "store"
    store.mkdir()
    err = open(tmp_path / "stderr.log", "wb")
    proc = subprocess.Popen([str(BSFD), "-c", str(path),
                             "--set", f"sbi.listen=127.0.0.1:{sbi}",
                             "--set", f"ops.listen=127.0.0.1:{ops}",
                             "--set", f"ops.admin_listen=127.0.0.1:{admin}",
                             "--set", f"store.path={store}", *extra],
                            stdout=subprocess.DEVNULL, stderr=err)
    return proc, f"http://127.0.0.1:{ops}"


def stop(proc, tmp_path):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert_no_sanitizer_report((tmp_path / "stderr.log").read_text(errors="replace"), "bsfd")


def ready(ops):
    try:
        return httpx.get(ops + "/health/ready", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_sample_configuration_runs(tmp_path):
    text = SAMPLE.read_text()
    assert sum(line.lstrip().startswith("#") for line in text.splitlines()) > 20  # commented
    proc, ops = start_with_file(tmp_path, text)
    try:
        wait_until(lambda: ready(ops), what="bsfd ready with deploy/bsf.yaml")
    finally:
        stop(proc, tmp_path)


def manifest():
    return {doc["kind"]: doc for doc in yaml.safe_load_all(MANIFEST.read_text())}


def test_kubernetes_probes_match_the_ops_endpoint(tmp_path):
    docs = manifest()
    config = docs["ConfigMap"]["data"]["bsf.yaml"]
    ops_port = int(yaml.safe_load(config)["ops"]["listen"].rsplit(":", 1)[1])
    pod = docs["StatefulSet"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["ops"] == ops_port
    assert pod["securityContext"]["runAsNonRoot"] is True
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert yaml.safe_load(config)["store"]["path"] in mounts
    probes = {name: container[name]["httpGet"] for name in
              ("startupProbe", "livenessProbe", "readinessProbe")}
    for probe in probes.values():
        assert probe["port"] in ("ops", ops_port), probe
    assert probes["readinessProbe"]["path"] == "/health/ready"
    # the probes' paths answer on a bsfd running the ConfigMap's configuration
    proc, ops = start_with_file(tmp_path, config)
    try:
        wait_until(lambda: ready(ops), what="bsfd ready with the ConfigMap")
        for probe in probes.values():
            assert httpx.get(ops + probe["path"], timeout=5).status_code == 200, probe
    finally:
        stop(proc, tmp_path)


def runtime_packages_needed():
    """The Debian packages of the shared libraries bsfd loads (ldd, dpkg -S)."""
    out = subprocess.run(["ldd", str(BSFD)], capture_output=True, text=True, check=True).stdout
    packages = set()
    for lib in re.findall(r"=> (/\S+)", out):
        real = str(pathlib.Path(lib).resolve())
        for candidate in (lib, real):
            done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
            if done.returncode == 0:
                packages.add(done.stdout.split(":")[0])
                break
    return packages


def test_image_runtime_stage_has_every_library_and_no_root():
    text = DOCKERFILE.read_text()
    stages = re.split(r"^FROM ", text, flags=re.M)[1:]
    assert len(stages) >= 2, "multi-stage"
    assert all(s.startswith("debian:bookworm-slim") for s in stages), stages
    runtime = stages[-1]
    installed = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", runtime.split("install -y", 1)[1]
                               .split("&&", 1)[0]))
    needed = runtime_packages_needed()
    # the sanitizer build's runtime (libasan and what it loads) is not the image's
    if any(p.startswith("libasan") for p in needed):
        needed = {p for p in needed
                  if not p.startswith(("libasan", "libubsan", "libgcc", "libstdc++"))}
    # the base image's essential packages
    essential = {p for p in needed if subprocess.run(
        ["dpkg-query", "-W", "-f=${Essential}${Priority}", p],
        capture_output=True, text=True).stdout in ("yesrequired", "required", "yes")}
    missing = needed - installed - essential
    # libraries these pull in themselves (dependencies of the packages listed)
    deps = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends",
                           "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
                           "--no-enhances", *sorted(installed & needed)],
                          capture_output=True, text=True).stdout
    pulled = set(re.findall(r"^\s*(?:Depends|PreDepends): <?([a-z0-9.+-]+)", deps, re.M)) | \
        set(re.findall(r"^([a-z0-9.+-]+)$", deps, re.M))
    missing -= pulled
    assert not missing, f"the runtime stage lacks {sorted(missing)}"
    assert "freediameter-extensions" in installed  # the dictionaries libfdcore loads
    user = re.findall(r"^USER (\S+)", runtime, re.M)
    assert user and not user[-1].startswith(("0", "root")), user
    assert re.search(r'^ENTRYPOINT \["/usr/bin/bsfd"\]', runtime, re.M)


def test_ops_answers_not_ready_during_kafka_catch_up(bsfd_factory, kafka_broker, tmp_path):
    """A site whose Kafka topic of another site is not read yet: while it catches up, /health/
    live is 200 and /health/ready 503; once caught up, ready."""
    import uuid
    topics = [f"bsf.pkg.{uuid.uuid4().hex[:8]}.{i}" for i in (1, 2)]
    common = {"log.backend": "kafka", "kafka.brokers": kafka_broker.bootstrap,
              "kafka.consume_topics": ";".join(topics)}
    first = bsfd_factory({**common, "site.id": 1, "kafka.topic": topics[0]})
    from support import Ue, binding, register
    for _ in range(200):
        ue = Ue()
        register(first.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    # site 2 starts on an empty store: it must bootstrap from Kafka first
    config = (f"site:\n  id: 2\nlog:\n  backend: kafka\nkafka:\n  brokers: {kafka_broker.bootstrap}\n"
              f"  topic: {topics[1]}\n  consume_topics: [{topics[0]}, {topics[1]}]\n")
    proc, ops = start_with_file(tmp_path, config)
    seen_not_ready = False
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                live = httpx.get(ops + "/health/live", timeout=2)
                readiness = httpx.get(ops + "/health/ready", timeout=2)
            except httpx.HTTPError:
                time.sleep(0.01)
                continue
            assert live.status_code == 200
            if readiness.status_code == 503:
                assert readiness.json() == {"status": "not ready"}
                log = (tmp_path / "stderr.log").read_text(errors="replace")
                seen_not_ready |= "caught up with the replicated log" not in log
            elif readiness.status_code == 200:
                break
            time.sleep(0.005)
        assert ready(ops), "site 2 never became ready"
    finally:
        stop(proc, tmp_path)
    assert seen_not_ready, "the ops endpoint never answered 503 before the catch-up ended"


def test_service_manager_notifications(tmp_path):
    """bsfd under a service manager (systemd's protocol, NOTIFY_SOCKET): STATUS while starting,
    READY=1 only once /health/ready is 200, WATCHDOG=1 at half of WATCHDOG_USEC, STOPPING=1 at
    SIGTERM."""
    import os
    import socket
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.05)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
    sbi, ops, admin = free_ports(3)
    (tmp_path / "store").mkdir()
    err = open(tmp_path / "stderr.log", "wb")
    proc = subprocess.Popen([str(BSFD), "--set", f"sbi.listen=127.0.0.1:{sbi}",
                             "--set", f"ops.listen=127.0.0.1:{ops}",
                             "--set", f"ops.admin_listen=127.0.0.1:{admin}",
                             "--set", f"store.path={tmp_path / 'store'}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=err)
    messages, ready_when_notified = [], None
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum("WATCHDOG=1" in m for m in messages) < 3:
            try:
                message = sock.recv(4096).decode()
            except socket.timeout:
                continue
            messages.append(message)
            if "READY=1" in message:
                ready_when_notified = ready(f"http://127.0.0.1:{ops}")
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("STOPPING=1" in m for m in messages):
            try:
                messages.append(sock.recv(4096).decode())
            except socket.timeout:
                continue
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    ready_at = next(i for i, m in enumerate(messages) if "READY=1" in m)
    assert ready_when_notified is True, messages
    assert any(m.startswith("STATUS=") for m in messages[:ready_at]), messages
    assert sum("WATCHDOG=1" in m for m in messages) >= 3, messages
    assert any("STOPPING=1" in m for m in messages[ready_at:]), messages
    assert "systemd watchdog every 400 ms" in (tmp_path / "stderr.log").read_text()


def test_install_layout_with_prefix_usr_matches_the_image(tmp_path):
    """Configured as the image builds it (prefix /usr): the sample configuration goes to
    /etc/bsf, never /usr/etc; the unit names it; every path the runtime stage copies from
    the build stage's DESTDIR is one the install writes (the binaries: the runtime component,
    not built here, go to /usr/bin)."""
    build, dest = tmp_path / "build", tmp_path / "dest"
    done = subprocess.run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja",
                           "-DBSF_TESTS=OFF", "-DCMAKE_INSTALL_PREFIX=/usr"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    for component in ("config", "systemd", "doc", "monitoring"):
        done = subprocess.run(["cmake", "--install", str(build), "--component", component],
                              env={**os.environ, "DESTDIR": str(dest)},
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
    assert (dest / "etc" / "bsf" / "bsf.yaml").read_text() == SAMPLE.read_text()
    assert not (dest / "usr" / "etc").exists()
    unit = (dest / "usr" / "lib" / "systemd" / "system" / "bsfd.service").read_text()
    assert re.search(r"^ExecStart=/usr/bin/bsfd -c /etc/bsf/bsf\.yaml$", unit, re.M), unit
    assert (dest / "usr" / "share" / "doc" / "bsf" / "operations.md").is_file()
    assert (dest / "usr" / "share" / "bsf" / "prometheus" / "bsf-rules.yml").is_file()
    runtime = re.split(r"^FROM ", DOCKERFILE.read_text(), flags=re.M)[-1]
    copies = re.findall(r"^COPY --from=build (.+) (\S+)$", runtime, re.M)
    assert copies
    for sources, _target in copies:
        for source in sources.split():
            assert source.startswith("/install/"), source
            inside = source[len("/install/"):]
            if inside in ("usr/bin/bsfd", "usr/bin/bsfctl"):
                continue
            assert (dest / inside).exists(), f"the Dockerfile copies {source}, not installed"
    assert ("/install/etc/bsf/bsf.yaml", "/etc/bsf/bsf.yaml") in copies
