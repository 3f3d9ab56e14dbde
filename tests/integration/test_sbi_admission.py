"""SBI admission control (issue 14; seeds 3.1, 3.4, 3.5, 3.26.1, 3.27, 3.28; TS 29.500 6.3,
6.4) over HTTP/2 loopback. The input is real: requests whose headers arrived but whose body
never comes are held at bsfd (admitted, receiving), and tiny thresholds on that resource
(congestion.receiving_thresholds, off by default) turn them into each congestion state and
overload level. Nothing sleeps for a state: the tests
wait for the state gauge."""
import re
import socket
import uuid

import h2.config
import h2.connection
import pytest

from support import Ue, binding, metrics, new_pcf_id, wait_until

INSTANCE = str(uuid.UUID("54804518-4191-46b3-955c-ac631f953ed8"))
STATES = {"NORMAL": 0, "DOC": 1, "L1": 2, "L2": 3, "CONGESTED": 4}
# pending requests 2, 4, 6, 8 make DOC, L1, L2, CONGESTED; CPU and memory are not in play
ADMISSION = {
    "nf.instance_id": INSTANCE,
    "congestion.interval_ms": 50,
    "congestion.sample_count": 1,
    "congestion.receiving_thresholds": "2;4;6;8",
    "congestion.cpu_thresholds": "97;98;99;100",
    "congestion.memory_thresholds": "",
    "overload.cpu_thresholds": "",
    "overload.memory_thresholds": "",
    "overload.pending_thresholds": "100:90;200:190;300:290",
    "sbi.body_timeout_s": 60,
}
DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=10.9.9.9"
OCI = re.compile(r'^Timestamp: "(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} '
                 r'\d\d:\d\d:\d\d\.\d{3} GMT"; Validity: (\d+); Metric: (\d{1,3})%; '
                 r'NFInst: ' + INSTANCE + '$')
LCI = re.compile(r'^Timestamp: "[^"]+ GMT"; Metric: (\d{1,3})%; NFInst: ' + INSTANCE + '$')


class Holder:
    """n POST requests whose body never comes (priority 0: never shed themselves), on one
    connection: they stay pending until close()."""

    def __init__(self, port, n):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        for k in range(n):
            self.conn.send_headers(1 + 2 * k, [
                (":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
                (":scheme", "http"), (":authority", "127.0.0.1"),
                ("content-type", "application/json"), ("content-length", "100"),
                ("3gpp-sbi-message-priority", "0")])
        self.sock.sendall(self.conn.data_to_send())

    def close(self):
        self.sock.close()


def state(server):
    return metrics(server)["ocbsf_admission_state"]


def hold(server, n, expect):
    holder = Holder(server.sbi_port, n)
    wait_until(lambda: state(server) == STATES[expect], what=f"state {expect}")
    return holder


def release(server, holder):
    holder.close()
    wait_until(lambda: state(server) == 0, what="state NORMAL")


def post(server, priority=None, body=None, headers=()):
    h = dict(headers)
    if priority is not None:
        h["3gpp-sbi-message-priority"] = str(priority)
    return server.client.post("/pcfBindings", json=body or binding(pcfId=new_pcf_id(), ipv4Addr=Ue().ipv4),
                              headers=h)


def get(server, priority=None):
    h = {} if priority is None else {"3gpp-sbi-message-priority": str(priority)}
    return server.client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}, headers=h)


def assert_shed(resp, status=503, cause="NF_CONGESTION_RISK", state_name=None):
    assert resp.status_code == status, (resp.status_code, resp.text)
    assert resp.headers["content-type"] == "application/problem+json"
    problem = resp.json()
    assert problem["status"] == status
    assert problem.get("cause") == cause, problem
    if state_name:
        assert problem["detail"].endswith(state_name), problem
    assert resp.headers["retry-after"] == "1"
    assert resp.headers["server"] == f"BSF-{INSTANCE}"


@pytest.fixture
def server(bsfd_factory):
    return bsfd_factory(ADMISSION)


def test_each_state_discards_by_its_priority(server):
    """Seed 3.4 defaults: DOC 30, L1 24, L2 18, CONGESTED 14; discovery 15, register 20."""
    assert state(server) == 0
    assert post(server, priority=31).status_code == 201  # NORMAL: nothing is shed
    for n, name, limit in ((2, "DOC", 30), (4, "L1", 24), (6, "L2", 18), (8, "CONGESTED", 14)):
        holder = hold(server, n, name)
        assert_shed(post(server, priority=limit), state_name=name)
        assert_shed(post(server, priority=31), state_name=name)
        assert post(server, priority=limit - 1).status_code == 201, name
        discovery = get(server)  # default priority 15
        if limit <= 15:
            assert_shed(discovery, state_name=name)
        else:
            assert discovery.status_code == 204, (name, discovery.text)  # no such binding
        holder.close()
        wait_until(lambda: state(server) == 0, what="state NORMAL")
    m = metrics(server)
    for name in ("DOC", "L1", "L2"):
        assert m[f'ocbsf_http_congestion_message_reject_total{{state="{name}"}}'] == 2, name
    assert m['ocbsf_http_congestion_message_reject_total{state="CONGESTED"}'] == 3
    assert m['ocbsf_admission_resource_state{resource="receiving"}'] == 0


def test_default_priorities_and_invalid_headers(server):
    """Seed 3.4 acceptance 2 and 4: in L2 (18) a register (20 by default) is shed, one with
    priority 10 passes; an invalid header (45, "x") falls back to the default."""
    holder = hold(server, 6, "L2")
    assert_shed(post(server))
    assert post(server, priority=10).status_code == 201
    assert_shed(post(server, priority=45))
    assert_shed(post(server, headers={"3gpp-sbi-message-priority": "x"}))
    head = server.client.head("/pcfBindings", params={"ipv4Addr": "10.9.9.9"},
                              headers={"3gpp-sbi-message-priority": "31"})
    assert head.status_code == 503 and head.content == b""
    assert get(server).status_code == 204  # discovery 15 < 18: no such binding
    # deregister (16) passes too: an unknown id gets its 404, not a 503
    assert server.client.delete("/pcfBindings/unknown").status_code == 404
    release(server, holder)


def test_a_shed_request_is_answered_before_its_body(server):
    """The decision is made at header completion: a shed POST whose body never comes is
    answered at once, and costs no pending slot."""
    holder = hold(server, 2, "DOC")
    other = socket.create_connection(("127.0.0.1", server.sbi_port), timeout=10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True,
                                                                header_encoding="utf-8"))
    conn.initiate_connection()
    conn.send_headers(1, [(":method", "POST"), (":path", "/nbsf-management/v1/pcfBindings"),
                          (":scheme", "http"), (":authority", "127.0.0.1"),
                          ("content-type", "application/json"), ("content-length", "5000"),
                          ("3gpp-sbi-message-priority", "31")])
    other.sendall(conn.data_to_send())
    status = None
    while status is None:
        for event in conn.receive_data(other.recv(65536)):
            if hasattr(event, "headers") and event.headers:
                status = dict(event.headers)[":status"]
    other.close()
    assert status == "503"
    assert state(server) == 1  # the shed request was never pending
    release(server, holder)


def test_percentage_mode(bsfd_factory):
    server = bsfd_factory({**ADMISSION, "congestion.shedding": "percentage"})
    holder = hold(server, 4, "L1")  # L1 24-29:50 30-31:75
    codes = [post(server, priority=30).status_code for _ in range(200)]
    shed = codes.count(503)
    assert 110 <= shed <= 190, shed
    assert set(codes) <= {201, 503}
    assert all(post(server, priority=23).status_code == 201 for _ in range(20))
    release(server, holder)


def test_configured_status_and_cause(bsfd_factory):
    """Seed 3.5 acceptance 1: the discard answer is configurable."""
    server = bsfd_factory({**ADMISSION, "congestion.response_status": 429,
                           "congestion.response_cause": "NF_CONGESTION"})
    holder = hold(server, 2, "DOC")
    assert_shed(post(server, priority=30), status=429, cause="NF_CONGESTION")
    release(server, holder)


def test_a_status_that_is_no_error_is_refused_at_start(tmp_path):
    from conftest import refused_at_start
    bad = [({"congestion.response_status": "302"}, "congestion.response_status"),
           ({"congestion.response_cause": "nf congestion"}, "congestion.response_cause"),
           ({"congestion.pending_thresholds": "5;4;6;8"}, "congestion.pending_thresholds"),
           ({"overload.reduction": "10;20"}, "overload.reduction")]
    for i, (settings, key) in enumerate(bad):
        (tmp_path / str(i)).mkdir()
        assert key in refused_at_start(tmp_path / str(i), settings)


def test_server_header_on_every_answer(server):
    """Seed 3.26.1: BSF-<nfInstanceId> on successes, errors and discards alike."""
    created = post(server)
    answers = [created, get(server), server.client.get("/nowhere"),
               server.client.post("/pcfBindings", content=b"{", headers={
                   "content-type": "application/json"}),
               server.client.delete(created.headers["location"].split("/v1")[1]),
               server.client.put("/pcfBindings", json={})]
    assert [r.status_code for r in answers] == [201, 204, 404, 400, 204, 405]
    for resp in answers:
        assert resp.headers.get("server") == f"BSF-{INSTANCE}", resp
    holder = hold(server, 2, "DOC")
    assert post(server, priority=31).headers["server"] == f"BSF-{INSTANCE}"
    release(server, holder)


def test_no_server_header_when_disabled(bsfd_factory):
    server = bsfd_factory({**ADMISSION, "sbi.server_header": "false"})
    assert "server" not in get(server).headers


def test_oci_while_overloaded_and_lci(bsfd_factory):
    """TS 29.500 6.4: while overloaded every answer carries an OCI for the NF instance with the
    level's reduction; after the overload a 0 metric is advertised (the overload ceased)."""
    server = bsfd_factory({**ADMISSION, "overload.pending_thresholds": "3:2;5:4;7:6",
                           "congestion.receiving_thresholds": "50;60;70;80",
                           "overload.validity_s": 30})
    # The LCI carries the load of the last sample: answers sent before the sampler's first
    # interval has passed have none.
    wait_until(lambda: "3gpp-sbi-lci" in get(server).headers, what="the first load sample")
    resp = get(server)
    assert "3gpp-sbi-oci" not in resp.headers
    assert LCI.match(resp.headers["3gpp-sbi-lci"]), resp.headers["3gpp-sbi-lci"]
    seen = {}
    for n, level, metric in ((3, 1, 10), (5, 2, 25), (7, 3, 50)):
        holder = Holder(server.sbi_port, n)
        wait_until(lambda: metrics(server)["ocbsf_admission_overload_level"] == level,
                   what=f"overload level {level}")
        for answer in (get(server), post(server), server.client.get("/nowhere")):
            oci = OCI.match(answer.headers["3gpp-sbi-oci"])
            assert oci, answer.headers["3gpp-sbi-oci"]
            assert (int(oci[2]), int(oci[3])) == (30, metric)
            seen[level] = oci[0]
        holder.close()
        wait_until(lambda: metrics(server)["ocbsf_admission_overload_level"] == 0,
                   what="no overload")
    after = OCI.match(get(server).headers["3gpp-sbi-oci"])
    assert after and int(after[3]) == 0
    assert len(set(seen.values())) == 3  # a new timestamp with each new metric


def test_error_status_and_cause_configurable(bsfd_factory):
    """Seed 3.33: an error condition's status and cause come from sbi.errors."""
    server = bsfd_factory({**ADMISSION, "sbi.errors":
                           "resource_uri_structure_not_found=400:NoSuchResource;"
                           "mandatory_ie_missing=422"})
    resp = server.client.get("/nowhere")
    assert resp.status_code == 400 and resp.json()["cause"] == "NoSuchResource", resp.text
    assert resp.json()["status"] == 400
    resp = server.client.post("/pcfBindings", json=binding(pcfId=new_pcf_id()))  # no address
    assert resp.status_code == 422 and resp.json()["cause"] == "MANDATORY_IE_MISSING", resp.text
    assert server.client.get("/pcfBindings/x").status_code == 405  # others keep theirs
    from conftest import refused_at_start
    server.stop()
    bad = server.workdir / "bad"
    bad.mkdir()
    assert "sbi.errors" in refused_at_start(bad, {"sbi.errors": "no_such_condition=400"})


def test_rate_limit_per_operation(bsfd_factory):
    """Seed 3.28: over the route's rate, requests above the cut-off priority get 429; the
    limit on register does not touch discovery."""
    server = bsfd_factory({**ADMISSION, "ratelimit.routes": "register=5",
                           "ratelimit.priority_cutoff": 2})
    codes = [post(server).status_code for _ in range(30)]
    assert codes.count(429) >= 15, codes
    assert set(codes) <= {201, 429}
    assert all(post(server, priority=2).status_code == 201 for _ in range(10))
    assert all(get(server).status_code == 204 for _ in range(30))
    m = metrics(server)
    assert m['ocbsf_sbi_ratelimit_reject_total{route="register"}'] == codes.count(429)
    assert m['ocbsf_sbi_ratelimit_reject_total{route="discovery"}'] == 0


def test_rate_limit_per_consumer(bsfd_factory):
    server = bsfd_factory({**ADMISSION, "ratelimit.consumer_rate": 5})
    noisy = {"user-agent": "PCF-11111111-1111-1111-1111-111111111111 pcf1"}
    quiet = {"user-agent": "PCF-22222222-2222-2222-2222-222222222222 pcf2"}
    codes = [post(server, headers=noisy).status_code for _ in range(30)]
    assert codes.count(429) >= 15, codes
    resp = post(server, headers=quiet)
    assert resp.status_code == 201, resp.text


def test_disabled_admits_everything(bsfd_factory):
    server = bsfd_factory({**ADMISSION, "admission.enabled": "false"})
    holder = Holder(server.sbi_port, 8)
    assert all(post(server, priority=31).status_code == 201 for _ in range(5))
    assert "3gpp-sbi-oci" not in get(server).headers
    assert "ocbsf_admission_state" not in server.ops.get("/metrics").text
    holder.close()
