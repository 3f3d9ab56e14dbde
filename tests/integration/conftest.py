"""Fixtures that run a real bsfd.

    bsfd                  module-scoped server with the default configuration
    client                bsfd.client on a fresh connection (HTTP/2 h2c client on the API root)
    bsfd_factory          function-scoped factory: bsfd_factory({"key": "value"}) -> Bsfd
    module_bsfd_factory   the same, servers live until the end of the module
    nrf_factory           function-scoped factory of NRF simulators: nrf_factory(**kw) -> NrfSim

A test module that needs another configuration for all its tests overrides `bsfd`:

    @pytest.fixture(scope="module")
    def bsfd(module_bsfd_factory):
        return module_bsfd_factory({"discovery.multiple_match": "reject"})

Every server still running at the end of its scope is stopped with SIGTERM, which asserts
exit code 0 and a stderr free of sanitizer reports.
"""

import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BSFD = pathlib.Path(os.environ.get("BSFD", REPO / "build" / "bsfd" / "bsfd"))
# Known leaks of the libraries under bsfd (see the file); the processes started here inherit it.
os.environ.setdefault("LSAN_OPTIONS", f"suppressions={REPO / 'tests' / 'integration' / 'lsan.supp'}")
# A known race of libfdcore's TLS connections (see the file), added to the caller's options.
if "suppressions=" not in os.environ.get("ASAN_OPTIONS", ""):
    os.environ["ASAN_OPTIONS"] = ":".join(
        filter(None, [os.environ.get("ASAN_OPTIONS"),
                      f"suppressions={REPO / 'tests' / 'integration' / 'asan.supp'}"]))
BSFCTL = pathlib.Path(os.environ.get("BSFCTL", REPO / "build" / "bsfctl" / "bsfctl"))
READY_TIMEOUT = 60.0  # a ceiling: a Kafka site may catch up for up to 30 s under ASan
STOP_TIMEOUT = 20.0
REQUEST_TIMEOUT = 10.0
SANITIZER_MARKERS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                     "ThreadSanitizer", "MemorySanitizer", "runtime error:")


def require_binary(path, env_name):
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"{path} is missing or not executable: build it, or point {env_name} at it")


def _ephemeral_range():
    try:
        low, high = map(int, pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999


# Ports handed out in this session are never handed out again: a stopped broker or peer
# must find its port free when it restarts.
_PORTS_GIVEN = set()


def _worker_share():
    """(index, count) of this pytest-xdist worker, (0, 1) without xdist. Each worker takes only
    the ports of its residue: a port one worker handed out but has not bound yet is never the
    free port another worker finds."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2:
        return 0, 1
    return int(worker[2:]) % count, count


def free_ports(count):
    """Distinct free TCP ports on 127.0.0.1 for servers the tests start.

    They are taken below the kernel's ephemeral range: a port picked there could meanwhile
    become the local port of one of the many outgoing connections (Kafka clients, Diameter
    peers, HTTP clients) before the server binds it."""
    low, high = _ephemeral_range()
    if low > 12000:
        first, last = 10000, low - 1
    elif high < 63000:
        first, last = high + 1, 65535
    else:  # the ephemeral range is everything: pick anywhere and accept the small race
        first, last = 10000, 65535
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    share, shares = _worker_share()
    ports, held = [], []
    try:
        for _ in range(20000):
            if len(ports) == count:
                break
            port = rng.randint(first, last)
            if port % shares != share or port in _PORTS_GIVEN or port in ports:
                continue
            sock = socket.socket()
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                sock.close()
                continue
            held.append(sock)
            ports.append(port)
    finally:
        for sock in held:
            sock.close()
    assert len(ports) == count, "no free ports left below the ephemeral range"
    _PORTS_GIVEN.update(ports)
    return ports


def assert_no_sanitizer_report(stderr, what):
    hits = [line for line in stderr.splitlines() if any(m in line for m in SANITIZER_MARKERS)]
    assert not hits, f"sanitizer report on stderr of {what}:\n" + "\n".join(hits[:20]) + \
        f"\n--- full stderr ---\n{stderr[-8000:]}"


def run_bsfctl(store, *args, check=True, timeout=120):
    require_binary(BSFCTL, "BSFCTL")
    done = subprocess.run([str(BSFCTL), "--store", str(store), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, f"bsfctl {' '.join(map(str, args))} -> {done.returncode}\n" \
                                     f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
        assert_no_sanitizer_report(done.stderr, "bsfctl")
    return done


def refused_at_start(workdir, settings, *named, timeout=10):
    """Runs bsfd once on its valid base configuration plus `settings`, which it must refuse:
    exit status 2 within `timeout`, each of `named` on stderr, no sanitizer report. Returns
    what it wrote to stderr."""
    require_binary(BSFD, "BSFD")
    server = Bsfd(workdir, settings)  # not started as a server: only its configuration is used
    try:
        done = subprocess.run(server.command(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"bsfd kept running with {settings}")
    assert done.returncode == 2, (done.returncode, done.stderr)
    for key in named:
        assert key in done.stderr, done.stderr
    assert_no_sanitizer_report(done.stderr, "bsfd")
    return done.stderr


class Bsfd:
    """One bsfd with its own ports and store.

    client   httpx HTTP/2 (h2c prior knowledge) client, base_url = the API root
    ops      httpx HTTP/1.1 client on the ops port (health, metrics)
    admin    httpx HTTP/1.1 client on the admin port (routes that change state), or None
             when ops.admin_listen is set by the test (it makes its own client then)
    store    the store directory (kept across restart / kill9)
    """

    def __init__(self, workdir, settings=None, tls_client=None):
        self.workdir = pathlib.Path(workdir)
        # An ssl.SSLContext for `client` when only sbi.tls.listen serves (tls_support.py).
        self.tls_client = tls_client
        self.store = self.workdir / "store"
        self.store.mkdir()
        self.sbi_port, self.ops_port, self.admin_port = free_ports(3)
        self.settings = {
            "sbi.listen": f"127.0.0.1:{self.sbi_port}",
            "ops.listen": f"127.0.0.1:{self.ops_port}",
            "ops.admin_listen": f"127.0.0.1:{self.admin_port}",
            "store.path": str(self.store),
            "site.id": "1",
        }
        self.settings.update({key: str(value) for key, value in (settings or {}).items()})
        self.process = None
        self.runs = 0
        self.client = None
        self.ops = None
        self.admin = None

    @property
    def api_root(self):
        return self.settings.get("sbi.api_root", f"http://127.0.0.1:{self.sbi_port}")

    @property
    def base_url(self):
        """Where the client connects (sbi.api_root only changes what the server writes):
        https on sbi.tls.listen when sbi.listen is empty."""
        tls = self.settings.get("sbi.tls.listen")
        if tls and not self.settings.get("sbi.listen"):
            return f"https://{tls}/nbsf-management/v1"
        return f"http://127.0.0.1:{self.sbi_port}/nbsf-management/v1"

    @property
    def running(self):
        return self.process is not None

    def command(self):
        command = [str(BSFD)]
        for key, value in self.settings.items():
            command += ["--set", f"{key}={value}"]
        return command

    def stderr_text(self):
        return (self.workdir / f"stderr.{self.runs}.log").read_text(errors="replace")

    def reconnect(self):
        """Replace `client` by one on a new connection (one test's protocol error must not
        leave a broken connection to the next test)."""
        if self.client is not None:
            self.client.close()
        self.client = self.new_client()
        return self.client

    def new_client(self):
        """Another HTTP/2 client: a separate TCP connection to the server."""
        return httpx.Client(http1=False, http2=True, base_url=self.base_url,
                            timeout=REQUEST_TIMEOUT, verify=self.tls_client or True)

    def start(self):
        """Start on the same ports and store; return once /health/ready answers 200."""
        require_binary(BSFD, "BSFD")
        assert not self.running, "already running"
        self.runs += 1
        with open(self.workdir / f"stdout.{self.runs}.log", "wb") as out, \
                open(self.workdir / f"stderr.{self.runs}.log", "wb") as err:
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                            stdout=out, stderr=err)
        self.ops = httpx.Client(base_url=f"http://127.0.0.1:{self.ops_port}",
                                timeout=REQUEST_TIMEOUT)
        if self.settings.get("ops.admin_listen") == f"127.0.0.1:{self.admin_port}":
            self.admin = httpx.Client(base_url=f"http://127.0.0.1:{self.admin_port}",
                                      timeout=REQUEST_TIMEOUT)
        self._wait_ready()
        self.client = self.new_client()
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            code = self.process.poll()
            if code is not None:
                self._detach()
                pytest.fail(f"bsfd exited with {code} before it was ready: {self.command()}\n"
                            f"stderr:\n{self.stderr_text()[-4000:]}")
            try:
                if self.ops.get("/health/ready").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.kill9()
                pytest.fail(f"bsfd not ready within {READY_TIMEOUT} s\n"
                            f"stderr:\n{self.stderr_text()[-4000:]}")
            time.sleep(0.05)

    def _detach(self):
        for http in (self.client, self.ops, self.admin):
            if http is not None:
                http.close()
        self.client = self.ops = self.admin = None
        process, self.process = self.process, None
        return process

    def stop(self):
        """SIGTERM; assert a clean exit (code 0, no sanitizer report)."""
        process = self._detach()
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"bsfd did not exit within {STOP_TIMEOUT} s of SIGTERM")
        stderr = self.stderr_text()
        assert_no_sanitizer_report(stderr, "bsfd")
        assert code == 0, f"bsfd exited with {code} after SIGTERM\nstderr:\n{stderr[-4000:]}"

    def kill9(self):
        """SIGKILL: no chance to flush or clean up. Checks stderr for reports made before."""
        process = self._detach()
        process.kill()
        process.wait()
        assert_no_sanitizer_report(self.stderr_text(), "bsfd")

    def restart(self):
        """Clean stop (if running) and start again on the same store."""
        if self.running:
            self.stop()
        return self.start()

    # --- ops port and bsfctl ---

    def active_sessions(self):
        resp = self.ops.get("/oc-bsf-configuration/v1/activeSessionCount/pcfBindings")
        assert resp.status_code == 200, resp.text
        assert resp.headers.get("content-type", "").startswith("application/json"), resp.headers
        return resp.json()

    def count(self):
        return self.active_sessions()["count"]

    def bsfctl(self, *args, check=True):
        return run_bsfctl(self.store, *args, check=check)

    def history(self, binding=None, supi=None, ue_addr=None):
        """`bsfctl history ... --json` as a list of event objects."""
        (option, value), = [(o, v) for o, v in (("--binding", binding), ("--supi", supi),
                                                 ("--ue-addr", ue_addr)) if v is not None]
        out = self.bsfctl("history", option, value, "--json").stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def digest(self):
        lines = [line.strip() for line in self.bsfctl("digest").stdout.splitlines() if line.strip()]
        assert len(lines) == 1, lines
        return lines[0]


def _server_factory(tmp_path_factory):
    servers = []

    def start(settings=None, tls_client=None):
        server = Bsfd(tmp_path_factory.mktemp("bsfd"), settings, tls_client)
        servers.append(server)
        return server.start()

    yield start
    failures = []
    for server in servers:
        if server.running:
            try:
                server.stop()
            except (AssertionError, pytest.fail.Exception) as error:
                failures.append(str(error))
    if failures:
        pytest.fail("\n\n".join(failures))


@pytest.fixture
def bsfd_factory(tmp_path_factory):
    yield from _server_factory(tmp_path_factory)


@pytest.fixture(scope="module")
def module_bsfd_factory(tmp_path_factory):
    yield from _server_factory(tmp_path_factory)


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    return module_bsfd_factory()


@pytest.fixture
def nrf_factory():
    """NrfSim(**kw) of tests/peers/nrf_sim.py (not started); at the end of the test each one is
    checked for protocol violations and closed."""
    sys.path.insert(0, str(REPO / "tests" / "peers"))
    import nrf_sim
    sims = []

    def make(**kw):
        sim = nrf_sim.NrfSim(**kw)
        sims.append(sim)
        return sim
    yield make
    for sim in sims:
        assert not sim.violations, sim.violations
        sim.close()


@pytest.fixture
def client(bsfd):
    """bsfd.client, on a fresh HTTP/2 connection for every test."""
    return bsfd.reconnect()


# ---- a real Kafka broker, shared by the whole session ---------------------------------------

KAFKA_SCRIPT = REPO / "scripts" / "kafka-broker.sh"


class KafkaBroker:
    """A single-node KRaft broker from scripts/kafka-broker.sh.

    bootstrap   "127.0.0.1:PORT"
    stop()      clean shutdown (SIGTERM)          start()  start again on the same data
    kill()      SIGKILL (outage / crash tests)
    """

    def __init__(self, directory):
        self.dir = directory
        self.port, self.controller_port = free_ports(2)
        self.bootstrap = f"127.0.0.1:{self.port}"

    def _run(self, *args, timeout=180):
        done = subprocess.run(["bash", str(KAFKA_SCRIPT), *args], capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, f"kafka-broker.sh {' '.join(args)} -> {done.returncode}\n" \
                                     f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        return done.stdout.strip()

    def start(self):
        self._run("start", str(self.dir), str(self.port), str(self.controller_port))

    def stop(self):
        self._run("stop", str(self.dir))

    def kill(self):
        self._run("kill", str(self.dir))


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory):
    """One broker for every test that needs Kafka (use unique topics per test)."""
    broker = KafkaBroker(tmp_path_factory.mktemp("kafka"))
    broker.start()
    yield broker
    subprocess.run(["bash", str(KAFKA_SCRIPT), "stop", str(broker.dir)], capture_output=True,
                   timeout=120)


# ---- sites replicating through the Kafka broker ----------------------------------------------

class SiteFactory:
    """Sites of one deployment: site N (from 1) produces to `<prefix>.N` and consumes every
    site's topic; the prefix is unique per test.

        sites = site_factory.start(3, {"log.durability": "replicated"})
        a, b = site_factory.start(2, total=3)  # the topics of 3 sites, 2 running
        c = site_factory.site(3, 3)            # site 3 (of 3), started later
    """

    def __init__(self, bsfd_factory, broker):
        import uuid
        self.bsfd_factory = bsfd_factory
        self.broker = broker
        self.prefix = f"bsf.it.{uuid.uuid4().hex[:10]}"
        self.count = 0

    def topics(self, n):
        return [f"{self.prefix}.{i}" for i in range(1, n + 1)]

    def settings(self, site, n, extra=None):
        settings = {"site.id": site, "log.backend": "kafka",
                    "kafka.brokers": self.broker.bootstrap,
                    "kafka.topic": f"{self.prefix}.{site}",
                    "kafka.consume_topics": ";".join(self.topics(n))}
        settings.update(extra or {})
        return settings

    def site(self, site, n, extra=None):
        return self.bsfd_factory(self.settings(site, n, extra))

    def start(self, n, extra=None, total=None):
        """Sites 1..n, each consuming the topics of `total` sites (default n)."""
        self.count = total or n
        return [self.site(i, self.count, extra) for i in range(1, n + 1)]


@pytest.fixture
def site_factory(bsfd_factory, kafka_broker):
    return SiteFactory(bsfd_factory, kafka_broker)


# Modules whose assertions bound a latency, a rate or a timer window: scripts/test.sh runs
# them alone, after the rest has run on several pytest-xdist workers, so another worker's
# sanitizer build does not take the CPU they measure.
SERIAL_MODULES = {
    "test_audit", "test_crash_recovery", "test_nf_scoring", "test_rx_congestion",
    "test_rx_failures", "test_rx_feed", "test_sbi_admission", "test_sbi_admission_rx",
    "test_sbi_hostile", "test_shutdown", "test_nrf_health",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "serial: run without other test workers (timing bounds)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__ in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)
