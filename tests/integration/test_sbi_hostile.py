"""Hostile HTTP/2 peers against bsfd's SBI server (issue 9): slowloris, streams whose body
never comes, slow readers, HPACK bombs, header floods, idle floods, too many descriptors.

Each attack is bounded in time and count on loopback. During it a second client's discovery
latency and bsfd's memory (VmRSS from /proc) are measured; after it, the server must serve
normally again."""

import resource
import socket
import struct
import statistics
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest

from conftest import Bsfd
from support import metrics, recv_before, wait_until

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=10.9.9.9"


def rss_kb(server):
    for line in open(f"/proc/{server.process.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def sanitized(server):
    return "libasan" in open(f"/proc/{server.process.pid}/maps").read()


def cpu_s(server):
    fields = open(f"/proc/{server.process.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def timeouts(server, phase):
    return metrics(server).get(f'bsf_sbi_timeouts_total{{phase="{phase}"}}', 0)


def frame(ftype, flags, stream_id, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream_id) + payload


def settings_frame(**values):
    payload = b"".join(struct.pack(">HI", k, v) for k, v in values.items())
    return frame(4, 0, 0, payload)


def open_h2(port, settings=None):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    if settings:
        conn.update_settings(settings)
    sock.sendall(conn.data_to_send())
    return sock, conn


def get_headers(path=DISCOVERY, extra=()):
    return [(":method", "GET"), (":path", path), (":scheme", "http"),
            (":authority", "127.0.0.1")] + list(extra)


def read_events(sock, conn, timeout, until=None):
    """Reads events until `until(events)` is true, the peer closes, or the timeout.
    Returns (events, closed). `until` is asked before the first read too: what it waits for
    may have come in an earlier call."""
    deadline = time.monotonic() + timeout
    events = []
    if until and until(events):
        return events, False
    while (data := recv_before(sock, deadline)) is not None:
        if not data:
            return events, True
        new = conn.receive_data(data)
        for e in new:  # a reading client gives the window back
            if isinstance(e, h2.events.DataReceived) and e.flow_controlled_length:
                conn.increment_flow_control_window(e.flow_controlled_length)
        events += new
        pending = conn.data_to_send()
        if pending:
            try:
                sock.sendall(pending)
            except (ConnectionResetError, BrokenPipeError):
                return events, True
        if until and until(events):
            return events, False
    return events, False


def is_closed(sock, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except socket.timeout:
            continue
        except ConnectionResetError:
            return True
    return False


class Prober:
    """A second client that keeps discovering while an attack runs; records latencies."""

    def __init__(self, server, interval=0.1):
        self.server, self.interval = server, interval
        self.latencies, self.failures = [], 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        client = self.server.new_client()
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                ok = client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"},
                                timeout=3.0).status_code == 204
            except Exception:  # noqa: BLE001 - any failure counts
                ok = False
                client.close()
                client = self.server.new_client()
            self.latencies.append(time.monotonic() - t0)
            self.failures += not ok
            self._stop.wait(self.interval)
        client.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        deadline = time.monotonic() + 5  # at least one probe, even after a short attack
        while not self.latencies and time.monotonic() < deadline:
            time.sleep(0.01)
        self._stop.set()
        self._thread.join(timeout=10)

    def check(self, max_latency=1.0, median_latency=None):
        assert self.latencies, "the prober made no request"
        assert self.failures == 0, f"{self.failures} of {len(self.latencies)} discoveries failed"
        assert max(self.latencies) < max_latency, \
            f"discovery took {max(self.latencies):.3f} s during the attack"
        if median_latency is not None:
            median = statistics.median(self.latencies)
            assert median < median_latency, f"discovery's median was {median:.3f} s"


def recovered(server):
    with server.new_client() as client:
        assert client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}).status_code == 204


def raise_own_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def offer_connections(server, socks, count, timeout, stop_at_refusal):
    """Offers `count` connections that each send the preface and SETTINGS, appending those
    that got through to `socks` (the caller closes them); one the kernel or bsfd refuses is
    skipped, or with `stop_at_refusal` ends the offer."""
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", server.sbi_port), timeout=timeout)
            s.sendall(PREFACE + settings_frame())
            socks.append(s)
        except OSError:
            if stop_at_refusal:
                break


# ---- slowloris -----------------------------------------------------------------------------

def test_slowloris_preface_is_closed_by_the_preface_timeout(bsfd_factory):
    server = bsfd_factory({"sbi.preface_timeout_s": 1, "sbi.workers": 1})
    socks = [socket.create_connection(("127.0.0.1", server.sbi_port)) for _ in range(20)]
    started = time.monotonic()
    with Prober(server) as probe:
        closed = set()
        for i in range(len(PREFACE)):  # one byte every 0.25 s: 24 bytes would take 6 s
            for k, s in enumerate(socks):
                if k not in closed:
                    try:
                        s.sendall(PREFACE[i:i + 1])
                    except OSError:
                        closed.add(k)
            time.sleep(0.25)
            if len(closed) == len(socks):
                break
        for k, s in enumerate(socks):
            if k not in closed and is_closed(s, 0.5):
                closed.add(k)
    elapsed = time.monotonic() - started
    for s in socks:
        s.close()
    assert len(closed) == len(socks), f"{len(socks) - len(closed)} slowloris connections open"
    assert elapsed < 4.5, f"slowloris connections held for {elapsed:.1f} s"
    probe.check()
    assert timeouts(server, "preface") >= len(socks)
    recovered(server)


def test_header_block_sent_byte_by_byte_gets_goaway(bsfd_factory):
    server = bsfd_factory({"sbi.header_timeout_s": 1, "sbi.workers": 1})
    sock, conn = open_h2(server.sbi_port)
    read_events(sock, conn, 0.3)
    conn.send_headers(1, get_headers(), end_stream=True)
    block = conn.data_to_send()
    started = time.monotonic()
    closed = False
    for i in range(len(block)):
        try:
            sock.sendall(block[i:i + 1])
        except OSError:
            closed = True
            break
        events, closed = read_events(sock, conn, 0.3)
        if closed or any(isinstance(e, h2.events.ConnectionTerminated) for e in events):
            closed = True
            break
    sock.close()
    assert closed, "a header block sent one byte at a time kept its connection"
    assert time.monotonic() - started < 4
    assert timeouts(server, "header") >= 1
    recovered(server)


# ---- streams whose body never comes, and the idle timeout ----------------------------------

def test_streams_whose_body_never_comes_are_reset(bsfd_factory):
    server = bsfd_factory({"sbi.body_timeout_s": 1, "sbi.workers": 1})
    conns = [open_h2(server.sbi_port) for _ in range(5)]
    post = [(":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
            (":scheme", "http"), (":authority", "127.0.0.1"),
            ("content-type", "application/json"), ("content-length", "60000")]
    rss0 = rss_kb(server)
    with Prober(server) as probe:
        for sock, conn in conns:
            for k in range(100):
                conn.send_headers(1 + 2 * k, post)
                conn.send_data(1 + 2 * k, b"{" + b" " * 100)
            sock.sendall(conn.data_to_send())
        rss_peak = rss_kb(server)
        resets = 0
        for sock, conn in conns:
            events, _ = read_events(
                sock, conn, 5,
                until=lambda ev: sum(isinstance(e, h2.events.StreamReset) for e in ev) >= 100)
            resets += sum(isinstance(e, h2.events.StreamReset) and e.error_code == 8
                          for e in events)
    for sock, _ in conns:
        sock.close()
    assert resets == 500, f"only {resets} of 500 stalled streams were reset (CANCEL)"
    assert timeouts(server, "body") >= 500
    assert rss_peak - rss0 < 64 * 1024, f"RSS grew by {rss_peak - rss0} KiB"
    probe.check()
    recovered(server)


def test_idle_timeout_does_not_skip_a_stalled_stream(bsfd_factory):
    server = bsfd_factory({"sbi.idle_timeout_s": 1, "sbi.body_timeout_s": 0,
                           "sbi.header_timeout_s": 0})
    sock, conn = open_h2(server.sbi_port)
    conn.send_headers(1, [(":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
                          (":scheme", "http"), (":authority", "127.0.0.1")])
    sock.sendall(conn.data_to_send())
    events, closed = read_events(
        sock, conn, 6, until=lambda ev: any(isinstance(e, h2.events.ConnectionTerminated)
                                            for e in ev))
    sock.close()
    assert closed or any(isinstance(e, h2.events.ConnectionTerminated) for e in events), \
        "a connection whose only stream never completes was kept past the idle timeout"
    assert timeouts(server, "idle") >= 1


# ---- slow readers ----------------------------------------------------------------------------

def test_slow_readers_are_bounded_and_cut_by_the_send_timeout(bsfd_factory):
    server = bsfd_factory({"sbi.send_timeout_s": 2, "sbi.workers": 1})
    attackers = []
    rss0 = rss_kb(server)
    with Prober(server) as probe:
        for _ in range(30):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", server.sbi_port))
            sock.setblocking(False)
            attackers.append(sock)
        ping = frame(6, 0, 0, b"12345678")
        burst = PREFACE + settings_frame() + ping * 4000
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:  # never read: the answers pile up at the server
            for sock in attackers:
                try:
                    sock.send(burst)
                except (BlockingIOError, OSError):
                    pass
            time.sleep(0.05)
        rss_peak = rss_kb(server)
    closed = sum(is_closed(s, 0.1) for s in attackers)
    wait_until(lambda: timeouts(server, "send") + metrics(server)["bsf_sbi_protocol_errors_total"]
               >= 1, timeout=10, what="slow readers cut")
    for sock in attackers:
        sock.close()
    assert rss_peak - rss0 < 100 * 1024, f"RSS grew by {rss_peak - rss0} KiB for 30 slow readers"
    probe.check()
    recovered(server)
    del closed


# ---- header limits and HPACK -----------------------------------------------------------------

def test_extra_headers_are_served_and_too_large_a_list_gets_431(bsfd_factory):
    server = bsfd_factory()
    sock, conn = open_h2(server.sbi_port)
    conn.send_headers(1, get_headers(extra=[(f"x-extra-{i}", "v") for i in range(33)]),
                      end_stream=True)
    conn.send_headers(3, get_headers(extra=[(f"x-pad-{i}", "v" * 1000) for i in range(20)]),
                      end_stream=True)
    sock.sendall(conn.data_to_send())
    events, _ = read_events(sock, conn, 5, until=lambda ev: sum(
        isinstance(e, h2.events.StreamEnded) for e in ev) >= 2)
    status = {e.stream_id: dict(e.headers)[b":status"] for e in events
              if isinstance(e, h2.events.ResponseReceived)}
    assert status == {1: b"204", 3: b"431"}
    # The advertised limit is what is enforced.
    assert conn.remote_settings[h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE] == 16384
    sock.close()


def hpack_int(value, prefix_bits, first):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def bomb_block(references):
    """:method GET, :path /, :scheme http, then a 4 KB literal added to the dynamic table
    and `references` indexed references to it (16 KB expanding to 64 MB)."""
    name, value = b"x-bomb", b"a" * 4000
    block = b"\x82\x84\x86" + b"\x40" + hpack_int(len(name), 7, 0) + name + \
        hpack_int(len(value), 7, 0) + value
    return block + b"\xbe" * references


def send_block(sock, stream_id, block):
    first, rest = block[:16384], block[16384:]
    flags = 0x1 | (0x4 if not rest else 0)
    out = frame(1, flags, stream_id, first)
    while rest:
        chunk, rest = rest[:16384], rest[16384:]
        out += frame(9, 0x4 if not rest else 0, stream_id, chunk)
    sock.sendall(out)


def raw_frames(sock, timeout, until):
    """Reads raw frames [(type, flags, stream, payload)] until `until(frames)` or timeout."""
    deadline, buf, frames = time.monotonic() + timeout, b"", []
    while not until(frames):
        data = recv_before(sock, deadline)
        if not data:
            break
        buf += data
        while len(buf) >= 9:
            length = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + length:
                break
            frames.append((buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF,
                           buf[9:9 + length]))
            buf = buf[9 + length:]
    return frames


def test_hpack_bomb_costs_bounded_cpu_and_the_connection_stays_usable(bsfd_factory):
    server = bsfd_factory({"sbi.workers": 1})
    sock = socket.create_connection(("127.0.0.1", server.sbi_port), timeout=10)
    sock.sendall(PREFACE + settings_frame())
    raw_frames(sock, 0.3, lambda f: False)
    sock.sendall(frame(4, 1, 0, b""))
    cpu0, rss0 = cpu_s(server), rss_kb(server)
    bombs = 40
    with Prober(server) as probe:
        for k in range(bombs):
            # Raw frames: h2's own encoder would not repeat the reference 16,000 times.
            send_block(sock, 1 + 2 * k, bomb_block(16000))
        frames = raw_frames(sock, 5, lambda f: sum(t == 3 for t, *_ in f) >= bombs)
        # The HPACK state is still in sync: an ordinary request on the same connection works.
        send_block(sock, 1 + 2 * bombs, b"\x82" + b"\x04" + hpack_int(len(DISCOVERY), 7, 0)
                   + DISCOVERY.encode() + b"\x86\x01\x09127.0.0.1")
        answer = raw_frames(sock, 5, lambda f: any(t in (1, 3, 7) and sid in (0, 1 + 2 * bombs)
                                                   for t, _, sid, _ in f))
    cpu = cpu_s(server) - cpu0
    resets = sum(t == 3 for t, *_ in frames)
    assert resets == bombs, f"{resets} of {bombs} HPACK bombs reset"
    assert any(t == 1 and sid == 1 + 2 * bombs for t, _, sid, _ in answer), \
        "the connection was not usable after the bombs"
    assert not any(t == 7 for t, *_ in frames + answer), "GOAWAY after HPACK bombs"
    assert cpu < bombs * 0.005 + 0.2, f"{bombs} HPACK bombs cost {cpu:.3f} s of CPU"
    assert rss_kb(server) - rss0 < 32 * 1024
    probe.check()
    assert metrics(server)["bsf_sbi_headers_too_large_total"] >= bombs
    sock.close()
    recovered(server)


def test_header_flood_from_ten_connections_does_not_starve_discovery(bsfd_factory):
    server = bsfd_factory({"sbi.workers": 1})
    stop = threading.Event()
    sent = [0]

    def flood():
        sock, conn = open_h2(server.sbi_port)
        sock.setblocking(False)
        sid = 1
        while not stop.is_set():
            for _ in range(50):
                conn.send_headers(sid, get_headers(extra=[("x-flood", "f" * 3000)]),
                                  end_stream=False)
                conn.reset_stream(sid)
                sid += 2
            data = conn.data_to_send()
            try:
                sock.send(data)
                sent[0] += len(data)
                sock.recv(1 << 20)
            except (BlockingIOError, OSError):
                pass
            conn.clear_outbound_data_buffer() if hasattr(conn, "clear_outbound_data_buffer") \
                else None
            time.sleep(0.01)
        sock.close()

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(10)]
    with Prober(server, interval=0.05) as probe:
        for t in threads:
            t.start()
        time.sleep(3)
        stop.set()
        for t in threads:
            t.join(timeout=10)
    assert sent[0] > 400 * 1024, f"the flood sent only {sent[0]} bytes"
    # The prober shares the GIL with ten flooding threads, so a single slow probe says more
    # about Python on a loaded machine than about bsfd: starvation shows in the median.
    probe.check(max_latency=1.0, median_latency=0.2)
    recovered(server)


# ---- memory budget and idle floods -----------------------------------------------------------

def test_worker_memory_budget_refuses_streams_then_connections(bsfd_factory):
    server = bsfd_factory({"sbi.workers": 1, "sbi.worker_memory_mb": 1,
                           "sbi.body_timeout_s": 0})
    post = [(":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
            (":scheme", "http"), (":authority", "127.0.0.1"),
            ("content-type", "application/json"), ("content-length", "60000")]
    conns, refused = [], 0
    for _ in range(8):
        sock, conn = open_h2(server.sbi_port)
        conns.append(sock)
        try:
            for k in range(200):
                conn.send_headers(1 + 2 * k, post)
                conn.send_data(1 + 2 * k, b"{" + b" " * 200)
            sock.sendall(conn.data_to_send())
        except OSError:
            break  # refused at accept: the budget is spent
        events, closed = read_events(sock, conn, 1)
        refused += sum(isinstance(e, h2.events.StreamReset) and e.error_code == 7
                       for e in events)
        if closed:
            break
    samples = metrics(server)
    assert refused > 0 and samples["bsf_sbi_refused_streams_total"] >= refused
    assert samples["bsf_sbi_connection_memory_bytes"] < 2 * 1024 * 1024
    extra = socket.create_connection(("127.0.0.1", server.sbi_port))
    extra.sendall(PREFACE + settings_frame())
    assert is_closed(extra, 3), "a connection was accepted over the memory budget"
    extra.close()
    assert metrics(server)["bsf_sbi_refused_connections_total"] >= 1
    for sock in conns:
        sock.close()
    wait_until(lambda: metrics(server)["bsf_sbi_connection_memory_bytes"] < 256 * 1024,
               what="memory released")
    recovered(server)


def test_idle_connections_cost_at_most_16_kb_each(bsfd_factory):
    raise_own_fd_limit()
    server = bsfd_factory({"sbi.workers": 1})
    n = 3000
    recovered(server)
    time.sleep(0.3)
    rss0 = rss_kb(server)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", server.sbi_port))
        s.sendall(PREFACE + settings_frame() + frame(4, 1, 0, b""))
        socks.append(s)
    wait_until(lambda: metrics(server)["bsf_sbi_connections"] >= n, what="all connected")
    with Prober(server) as probe:
        time.sleep(1.0)
    per_conn = (rss_kb(server) - rss0) * 1024 / n
    for s in socks:
        s.close()
    # The goal (issue 9) is for the release build; ASan's redzones and quarantine add more.
    limit = 48 * 1024 if sanitized(server) else 16 * 1024
    assert per_conn <= limit, f"{per_conn:.0f} bytes of RSS per idle connection"
    probe.check()
    wait_until(lambda: metrics(server)["bsf_sbi_connections"] == 0, what="all closed")
    recovered(server)


# ---- descriptors -----------------------------------------------------------------------------

def test_out_of_descriptors_bsfd_still_exits_on_sigterm(tmp_path):
    raise_own_fd_limit()
    server = Bsfd(tmp_path, {"sbi.workers": 1})
    plain = server.command
    server.command = lambda: ["prlimit", "--nofile=1024:1024", "--"] + plain()
    server.start()
    socks = []
    try:
        offer_connections(server, socks, 1500, timeout=2, stop_at_refusal=True)
        time.sleep(1)
        samples = metrics(server)
        assert samples["bsf_sbi_connections"] <= 1024 - 256
        assert samples["bsf_sbi_refused_connections_total"] + \
            samples["bsf_sbi_accept_errors_total"] > 0
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 10, "bsfd took too long to exit"
    finally:
        for s in socks:
            s.close()
    assert "capped to 768" in server.stderr_text()


# ---- overload --------------------------------------------------------------------------------

def test_registration_flood_gets_503_with_retry_after_and_stays_bounded(bsfd_factory):
    """A flood against a 16-command queue: the refused writes get 503 NF_CONGESTION_RISK
    (TS 29.500 §5.2.7.2) with Retry-After; memory and time stay bounded."""
    import json
    from support import binding
    server = bsfd_factory({"store.queue_capacity": 16, "store.max_batch": 1, "sbi.workers": 1})
    rss0 = rss_kb(server)
    sock, conn = open_h2(server.sbi_port, {h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20})
    streams = 900
    started = time.monotonic()
    events = []
    with Prober(server) as probe:
        for k in range(streams):
            body = json.dumps(binding(ipv4Addr=f"10.77.{k >> 8}.{k & 255}")).encode()
            conn.send_headers(1 + 2 * k, [
                (":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
                (":scheme", "http"), (":authority", "127.0.0.1"),
                ("content-type", "application/json"), ("content-length", str(len(body)))])
            conn.send_data(1 + 2 * k, body, end_stream=True)
            if k % 100 == 99:
                sock.sendall(conn.data_to_send())
                events += read_events(sock, conn, 0.01)[0]
        sock.sendall(conn.data_to_send())
        done = sum(isinstance(e, h2.events.StreamEnded) for e in events)
        events += read_events(sock, conn, 60, until=lambda ev: done + sum(
            isinstance(e, h2.events.StreamEnded) for e in ev) >= streams)[0]
    elapsed = time.monotonic() - started
    rss_peak = rss_kb(server)
    sock.close()
    heads = {e.stream_id: dict(e.headers) for e in events
             if isinstance(e, h2.events.ResponseReceived)}
    bodies = {}
    for e in events:
        if isinstance(e, h2.events.DataReceived):
            bodies[e.stream_id] = bodies.get(e.stream_id, b"") + e.data
    statuses = [h[b":status"] for h in heads.values()]
    assert len(statuses) == streams
    assert set(statuses) <= {b"201", b"503"}, set(statuses)
    congested = [sid for sid, h in heads.items() if h[b":status"] == b"503"]
    assert congested, "900 writes in flight never filled a 16-command queue"
    for sid in congested:
        assert heads[sid][b"retry-after"] == b"1"
        problem = json.loads(bodies[sid])
        assert problem["cause"] == "NF_CONGESTION_RISK" and problem["status"] == 503
    assert elapsed < 30, f"the flood took {elapsed:.1f} s"
    assert rss_peak - rss0 < 64 * 1024, f"RSS grew by {rss_peak - rss0} KiB"
    probe.check(max_latency=2.0)
    recovered(server)


# ---- fatal errors ----------------------------------------------------------------------------

def test_fatal_error_gets_goaway_with_its_code_then_a_clean_close(bsfd_factory):
    """A DATA frame on stream 0 is a connection error (RFC 9113 §6.1): GOAWAY PROTOCOL_ERROR,
    written before the close even though the peer keeps sending; logged at warning once
    per 10 s however many peers do it."""
    server = bsfd_factory({"sbi.workers": 1})
    codes = []
    for _ in range(5):
        sock = socket.create_connection(("127.0.0.1", server.sbi_port), timeout=10)
        sock.sendall(PREFACE + settings_frame() + frame(0, 0, 0, b"x" * 10))
        try:  # the peer goes on sending: the GOAWAY must survive it
            for _ in range(20):
                sock.sendall(frame(6, 0, 0, b"12345678"))
        except OSError:
            pass
        frames = raw_frames(sock, 5, lambda f: any(t == 7 for t, *_ in f))
        goaways = [p for t, _, _, p in frames if t == 7]
        assert goaways, "no GOAWAY before the close"
        codes.append(int.from_bytes(goaways[0][4:8], "big"))
        assert is_closed(sock, 3), "the connection stayed open after a fatal error"
        sock.close()
    assert codes == [1] * 5, codes  # PROTOCOL_ERROR
    assert metrics(server)["bsf_sbi_protocol_errors_total"] >= 5
    warnings = [line for line in server.stderr_text().splitlines()
                if "WARN" in line and "HTTP/2 connection from" in line]
    assert len(warnings) == 1, warnings
    recovered(server)


def test_accept_at_emfile_neither_spins_nor_blocks_sigterm(bsfd_factory):
    """The limit lowered under a running bsfd (prlimit), so that accept() itself fails with
    EMFILE. With two workers, one worker's accept takes the reserve descriptor libuv frees
    to shed a connection in the other, whose listener then fails at once, forever (before:
    a core spinning and no exit within 12 s of SIGTERM). The workers must not spin, must
    listen again once descriptors are free, and must exit on SIGTERM in time."""
    import subprocess
    raise_own_fd_limit()
    server = bsfd_factory({"sbi.workers": 2, "sbi.idle_timeout_s": 0})
    pid = server.process.pid
    # The reproduction: a soft limit of 1,024 and 1,500 connections offered (set
    # after start, so that bsfd's own cap of sbi.max_connections does not avoid EMFILE).
    subprocess.run(["prlimit", f"--pid={pid}", "--nofile=1024:1024"], check=True)
    socks = []
    offer_connections(server, socks, 1500, timeout=1, stop_at_refusal=False)
    time.sleep(0.5)
    cpu0 = cpu_s(server)
    time.sleep(2)
    spent = cpu_s(server) - cpu0
    assert spent < 0.5, f"bsfd used {spent:.2f} s of CPU in 2 s while out of descriptors"
    for s in socks:
        s.close()
    # Descriptors free again: the worker listens again and serves.
    wait_until(lambda: _serves(server), timeout=10, what="serving again after EMFILE")
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 10


def _serves(server):
    try:
        recovered(server)
        return True
    except Exception:  # noqa: BLE001 - not yet
        return False
