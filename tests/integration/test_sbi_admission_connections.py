"""Connection admission by congestion state (issue 14 §5, seed 3.29) and fairness between
connections (§6), over real sockets. The congestion state comes from real input as in
test_sbi_admission.py: requests whose body never comes, held at bsfd, against tiny
thresholds on that resource; the tests wait for the state gauge, they do not sleep."""
import json
import socket
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

from support import h2_request, metrics, recv_before, wait_until
from test_sbi_admission import ADMISSION, STATES, Holder, state

MAX_STREAMS = 100
SETTINGS = dict(ADMISSION, **{"sbi.max_concurrent_streams": MAX_STREAMS,
                              "admission.connection_refuse_state": "CONGESTED",
                              "admission.connection_max_streams": 8})
DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=10.9.9.9"


def server_settings(port):
    """Opens a connection and returns (socket, h2 connection, the server's first SETTINGS as
    a dict), or (None, None, None) when bsfd closed the connection without a word."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    try:
        sock.sendall(conn.data_to_send())
    except (BrokenPipeError, ConnectionResetError):
        sock.close()
        return None, None, None
    deadline = time.monotonic() + 10
    while True:
        data = recv_before(sock, deadline)
        assert data is not None, "neither SETTINGS nor a close within 10 s"
        if not data:
            sock.close()
            return None, None, None
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RemoteSettingsChanged):
                return sock, conn, {k: v.new_value for k, v in event.changed_settings.items()}


def max_streams(port):
    sock, _, settings = server_settings(port)
    if sock is None:
        return None
    sock.close()
    return settings.get(h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS)


def hold(server, n, expect):
    holder = Holder(server.sbi_port, n)
    wait_until(lambda: state(server) == STATES[expect], what=f"state {expect}")
    return holder


def test_connections_admitted_limited_and_refused_by_state(bsfd_factory):
    server = bsfd_factory(SETTINGS)
    port = server.sbi_port
    assert max_streams(port) == MAX_STREAMS  # NORMAL: the configured limit

    holder = hold(server, 2, "DOC")
    assert max_streams(port) == 8  # DOC: a new connection gets fewer streams ...
    resp = h2_request(port, "GET", DISCOVERY, [("3gpp-sbi-message-priority", "1")])
    assert resp.status == 204, resp  # ... and is served
    holder.close()
    wait_until(lambda: state(server) == 0, what="state NORMAL")

    # a connection opened before CONGESTED keeps being served:
    sock, conn, _ = server_settings(port)
    holder = hold(server, 8, "CONGESTED")
    assert max_streams(port) is None  # refused at accept, before a single frame
    assert max_streams(port) is None
    stream = conn.get_next_available_stream_id()
    conn.send_headers(stream, [(":method", "GET"), (":scheme", "http"),
                               (":authority", "127.0.0.1"), (":path", DISCOVERY),
                               ("3gpp-sbi-message-priority", "1")], end_stream=True)
    sock.sendall(conn.data_to_send())
    status, deadline = None, time.monotonic() + 10
    while status is None:
        data = recv_before(sock, deadline)
        assert data, "the old connection was not answered"
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                status = int(dict(event.headers)[b":status"])
    assert status == 204  # priority 1 is not shed even in CONGESTED (limit 14)
    sock.close()
    m = metrics(server)
    assert m['ocbsf_sbi_connection_reject_total{state="CONGESTED"}'] == 2
    assert m['ocbsf_sbi_connection_limited_total{state="DOC"}'] == 2
    holder.close()
    wait_until(lambda: state(server) == 0, what="state NORMAL")
    assert max_streams(port) == MAX_STREAMS  # back to NORMAL: admitted again


def test_never_refuses_by_default(bsfd_factory):
    server = bsfd_factory(dict(ADMISSION, **{"sbi.max_concurrent_streams": MAX_STREAMS}))
    holder = hold(server, 8, "CONGESTED")
    assert max_streams(server.sbi_port) == 32  # default admission.connection_max_streams
    resp = h2_request(server.sbi_port, "GET", DISCOVERY, [])
    assert resp.status == 503, resp  # seed 3.5's answer rather than a closed connection
    holder.close()


def flood_connection(port, n):
    """A connection with n discoveries ready to go in one write (unsent yet)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 30})
    conn.increment_flow_control_window((1 << 30) - 65535)
    conn.local_settings.acknowledge()
    for k in range(n):
        conn.send_headers(1 + 2 * k, [(":method", "GET"), (":scheme", "http"),
                                      (":authority", "127.0.0.1"), (":path", DISCOVERY)],
                          end_stream=True)
    return sock, conn, conn.data_to_send()


def received_now(sock):
    """What the socket holds now (non-blocking)."""
    sock.settimeout(0.0)
    received = b""
    try:
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            received += chunk
    except BlockingIOError:
        pass
    return received


def answered_now(sock, conn):
    """Streams ended in what the socket holds now (non-blocking)."""
    events = conn.receive_data(received_now(sock))
    return sum(isinstance(e, h2.events.StreamEnded) for e in events)


class Probe:
    """A connection of its own that sends priority-1 discoveries, one at a time."""

    def __init__(self, port):
        self.sock, self.conn, _ = server_settings(port)
        self.ids = iter(range(1, 1 << 20, 2))

    def send(self):
        sid = next(self.ids)
        self.conn.send_headers(sid, [(":method", "GET"), (":scheme", "http"),
                                     (":authority", "127.0.0.1"), (":path", DISCOVERY),
                                     ("3gpp-sbi-message-priority", "1")], end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        return sid

    def answer(self, sid, deadline):
        """The answer's status (an int) once the stream ended."""
        status = None
        while True:
            data = recv_before(self.sock, deadline)
            assert data, "the probe was not answered"
            for event in self.conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == sid:
                    status = int(dict(event.headers)[b":status"])
                if isinstance(event, h2.events.StreamEnded) and event.stream_id == sid:
                    self.sock.sendall(self.conn.data_to_send())
                    return status


def test_a_flooding_connection_does_not_hold_back_another(bsfd_factory):
    """Issue 14 §6: four connections send 1,000 discoveries each at once (~20 KiB, one read
    of the worker each); a request on a fifth connection, sent right after, is answered
    before the floods are done: a connection is served at most 16 requests per loop
    iteration, then the others get their turn. (Without the bound the worker handled each
    read whole, 1,000 requests, before reading another socket.)"""
    n, total = 1000, 4
    server = bsfd_factory({"sbi.workers": 1, "sbi.max_concurrent_streams": n,
                           "admission.enabled": "false"})
    port = server.sbi_port
    floods = [flood_connection(port, n) for _ in range(total)]
    probe = Probe(port)
    for sock, _, data in floods:
        sock.sendall(data)
    assert probe.answer(probe.send(), time.monotonic() + 10) in (200, 204)
    done = sum(answered_now(sock, conn) for sock, conn, _ in floods)
    assert done < n * total, "the probe waited for every flood"
    for sock, _, _ in floods:
        sock.close()
    probe.sock.close()


def test_priority_first_before_anything_is_shed(bsfd_factory):
    """Issue 14 §6 while nothing is shed (state NORMAL): eight connections send
    2,000 discoveries each at once, more than a round's quantum, so they push. A priority-1
    discovery on its own connection, sent while they push, makes that connection urgent,
    and its next requests are read between the flood connections' reads rather than after
    a whole round of them (bsf_sbi_priority_reads_total counts those reads; nothing counts
    them while no connection pushes). Every probe request is answered 2xx."""
    n, total = 2000, 8
    server = bsfd_factory(dict(ADMISSION, **{"sbi.workers": 1,
                                             "sbi.max_concurrent_streams": n}))
    port = server.sbi_port
    probe = Probe(port)

    def ask(deadline):
        return probe.answer(probe.send(), deadline)

    deadline = time.monotonic() + 20
    assert ask(deadline) in (200, 204)  # alone: nobody pushes, nothing is read early
    assert metrics(server)["bsf_sbi_priority_reads_total"] == 0
    floods = [flood_connection(port, n) for _ in range(total)]
    for sock, _, data in floods:
        sock.sendall(data)
    statuses = [ask(deadline) for _ in range(20)]
    assert all(st in (200, 204) for st in statuses), statuses
    done = sum(answered_now(sock, conn) for sock, conn, _ in floods)
    assert done < n * total, "the probes waited for every flood"
    m = metrics(server)
    assert m["bsf_sbi_priority_reads_total"] >= 1
    assert sum(v for k, v in m.items()
               if k.startswith("ocbsf_http_congestion_message_reject_total")) == 0
    for sock, _, _ in floods:
        sock.close()
    probe.sock.close()


def test_a_priority_request_is_answered_while_a_flood_is_shed(bsfd_factory):
    """Issue 14 §6 and §8 with shedding: CONGESTED (held requests), four connections send
    1,000 discoveries each at once (default priority 15: shed, discard priority 14), and a
    priority-1 discovery on its own connection beside them is answered, not shed (while the
    worker sheds, a flood connection is served 4 requests per round and the connection that
    carries more important requests is read in between). Every flood request gets the
    configured discard answer, prepared once. (Whether the probe is answered before the last
    flood answer is not asserted: 4,000 shed requests take bsfd about as long as the probe's
    round trip through Python.)"""
    n, total = 1000, 4
    server = bsfd_factory(dict(ADMISSION, **{
        "sbi.workers": 1, "sbi.max_concurrent_streams": n,
        "congestion.response_cause": "NF_CONGESTION", "congestion.retry_after_s": 3}))
    port = server.sbi_port
    holder = hold(server, 8, "CONGESTED")
    probe = Probe(port)

    # the probe's connection has carried a priority-1 request during shedding
    floods = [flood_connection(port, n) for _ in range(total)]
    warm_sock, warm, warm_data = flood_connection(port, 20)
    warm_sock.sendall(warm_data)
    status = probe.answer(probe.send(), time.monotonic() + 10)
    assert status in (200, 204), status
    for sock, _, data in floods:
        sock.sendall(data)
    status = probe.answer(probe.send(), time.monotonic() + 10)
    assert status in (200, 204), status  # priority 1: never shed
    answers = {}  # (flood, stream) -> [headers, body]
    ended = [0] * total

    def collect(k, deadline=None):
        """What flood k's socket holds now (deadline None), or at least one read by it."""
        sock, conn, _ = floods[k]
        data = received_now(sock)
        if not data and deadline is not None:
            data = recv_before(sock, deadline)
            assert data, f"flood {k}: {ended[k]} of {n} answered"
        for event in conn.receive_data(data):
            key = (k, getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ResponseReceived):
                answers[key] = [dict(event.headers), b""]
            elif isinstance(event, h2.events.DataReceived):
                answers[key][1] += event.data
            elif isinstance(event, h2.events.StreamEnded):
                ended[k] += 1

    deadline = time.monotonic() + 30
    for k in range(total):
        while ended[k] < n:
            collect(k, deadline)
    assert len(answers) == n * total
    bodies = set()
    for headers, body in answers.values():
        assert headers[b":status"] == b"503", headers
        assert headers[b"content-type"] == b"application/problem+json"
        assert headers[b"retry-after"] == b"3"
        bodies.add(body)
    assert len(bodies) == 1, bodies  # one answer, the same for every shed request
    problem = json.loads(bodies.pop())
    assert problem["status"] == 503 and problem["cause"] == "NF_CONGESTION", problem
    assert problem["detail"].endswith("CONGESTED"), problem
    m = metrics(server)
    assert m['ocbsf_http_congestion_message_reject_total{state="CONGESTED"}'] >= n * total
    for sock, _, _ in floods + [(warm_sock, None, None)]:
        sock.close()
    probe.sock.close()
    holder.close()
