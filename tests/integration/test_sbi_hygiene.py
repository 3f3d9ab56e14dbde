"""Transport hygiene of the SBI server (issue 13 §6), over HTTP/2 on loopback: the Date of
every answer, ProblemDetails without an empty instance, Accept-Patch on a 415 to a PATCH,
requests without a body, an HTTP/1.1 request on the h2c port."""

import email.utils
import json
import socket
import time

import pytest

import openapi
from support import (MERGE_PATCH, Ue, assert_problem, binding, describe, h2_request,
                     ipv6_loopback, recv_before, register)

API = "/nbsf-management/v1"


def assert_date(headers):
    """A Date header in IMF-fixdate (RFC 9110 §5.6.7) within a few seconds of now."""
    value = headers.get("date")
    assert value, headers
    assert value.endswith(" GMT") and len(value) == 29, value
    when = email.utils.parsedate_to_datetime(value).timestamp()
    assert abs(when - time.time()) < 5, value


# --- Date --------------------------------------------------------------------------------

def test_every_answer_has_a_date(bsfd, client):
    ue = Ue()
    created = client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4))
    assert created.status_code == 201, describe(created)
    assert_date(created.headers)
    found = client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4})
    assert found.status_code == 200, describe(found)
    assert_date(found.headers)
    missing = client.delete("/pcfBindings/" + "0" * 32)
    assert missing.status_code == 404, describe(missing)
    assert_date(missing.headers)
    # answered by the server itself, before the handler: 414
    raw = h2_request(bsfd.sbi_port, "GET", API + "/pcfBindings?x=" + "a" * 9000, [])
    assert raw.status == 414, raw
    assert_date(raw.headers)


# --- ProblemDetails.instance ---------------------------------------------------------------

def test_problem_instance_is_the_path_or_absent_never_empty(bsfd, client):
    # refused before the handler (URI too long): the path is not kept, so no instance
    raw = h2_request(bsfd.sbi_port, "GET", API + "/pcfBindings?x=" + "a" * 9000, [])
    problem = json.loads(raw.body)
    openapi.validate(problem, "ProblemDetails")
    assert "instance" not in problem, problem
    # refused before the handler with the path known (body too large): the path
    raw = h2_request(bsfd.sbi_port, "POST", API + "/pcfBindings?a=b",
                     [("content-type", "application/json"), ("content-length", "100000000")],
                     end_stream=False, timeout=5.0)
    assert raw.status == 413, raw
    problem = json.loads(raw.body)
    assert problem.get("instance") == API + "/pcfBindings", problem
    # refused by the handler: the path
    resp = client.delete("/pcfBindings/" + "0" * 32)
    assert resp.json()["instance"] == API + "/pcfBindings/" + "0" * 32, describe(resp)


# --- requests without a body, Accept-Patch ------------------------------------------------

@pytest.mark.parametrize("content_type", ["application/json", None])
def test_post_without_a_body_is_400(bsfd, client, content_type):
    count = bsfd.count()
    headers = [("content-type", content_type)] if content_type else []
    raw = h2_request(bsfd.sbi_port, "POST", API + "/pcfBindings", headers)
    assert raw.status == 400, raw
    problem = json.loads(raw.body)
    openapi.validate(problem, "ProblemDetails")
    assert problem["cause"] == "INVALID_MSG_FORMAT", problem
    assert bsfd.count() == count


@pytest.mark.parametrize("content_type", [MERGE_PATCH, None])
def test_patch_without_a_body_is_400(bsfd, client, content_type):
    binding_id, _ = register(client, binding(ipv4Addr=Ue().ipv4))
    headers = [("content-type", content_type)] if content_type else []
    raw = h2_request(bsfd.sbi_port, "PATCH", f"{API}/pcfBindings/{binding_id}", headers)
    assert raw.status == 400, raw
    assert json.loads(raw.body)["cause"] == "INVALID_MSG_FORMAT", raw


def test_put_without_a_body_on_the_collection_is_405_with_allow(bsfd):
    raw = h2_request(bsfd.sbi_port, "PUT", API + "/pcfBindings", [])
    assert raw.status == 405, raw
    assert {m.strip() for m in raw.headers["allow"].split(",")} == {"GET", "POST"}, raw


def test_415_to_a_patch_names_the_accepted_patch_type(client):
    binding_id, _ = register(client, binding(ipv4Addr=Ue().ipv4))
    resp = client.patch(f"/pcfBindings/{binding_id}", content=b'{"dnn": "x"}',
                        headers={"content-type": "application/json-patch+json"})
    assert_problem(resp, 415, "INVALID_MSG_FORMAT")
    assert resp.headers.get("accept-patch") == MERGE_PATCH, describe(resp)
    # a 415 to a POST has none
    post = client.post("/pcfBindings", content=b"{}", headers={"content-type": "text/plain"})
    assert_problem(post, 415, "INVALID_MSG_FORMAT")
    assert "accept-patch" not in post.headers, describe(post)


# --- HTTP/1.1 on the h2c port ---------------------------------------------------------------

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def exchange(port, data, timeout=5.0):
    """Sends `data` on a new connection and reads until the server closes it. Returns
    (bytes received, closed cleanly: FIN rather than a reset or the timeout)."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        deadline = time.monotonic() + timeout
        try:
            while (chunk := recv_before(sock, deadline)) is not None:
                if not chunk:
                    return received, True
                received += chunk
        except ConnectionResetError:
            return received, False
    return received, False


def parse_http1(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return lines[0], {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize("request_text", [
    "GET /nbsf-management/v1/pcfBindings?ipv4Addr=10.0.0.1 HTTP/1.1\r\nHost: bsf\r\n\r\n",
    "POST /nbsf-management/v1/pcfBindings HTTP/1.1\r\nHost: bsf\r\ncontent-type: application/json"
    "\r\ncontent-length: 2\r\n\r\n{}",
    # an h2c upgrade (RFC 7540 §3.2) is not taken up: the same answer
    "GET / HTTP/1.1\r\nHost: bsf\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
    "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n",
    "OPTIONS * HTTP/1.0\r\n\r\n",
], ids=["get", "post", "h2c-upgrade", "http1.0"])
def test_http1_request_gets_an_http1_505_and_a_clean_close(bsfd, client, request_text):
    data, clean = exchange(bsfd.sbi_port, request_text.encode())
    status, headers, body = parse_http1(data)
    assert status == "HTTP/1.1 505 HTTP Version Not Supported", data
    assert int(headers["content-length"]) == len(body) and b"HTTP/2" in body, data
    assert headers["connection"] == "close", data
    assert_date(headers)
    assert clean, "the connection was reset instead of closed"
    # the server still speaks HTTP/2
    assert client.get("/pcfBindings", params={"ipv4Addr": "10.0.0.1"}).status_code in (200, 204)


def test_not_http_at_all_gets_no_http1_answer(bsfd):
    """Bytes that are neither HTTP/2 nor an HTTP/1 request line: nghttp2 ends the connection
    (a GOAWAY frame, type 7), no HTTP/1.1 text."""
    data, _ = exchange(bsfd.sbi_port, b"INVALID CONNECTION PREFACE\r\n\r\n")
    assert not data.startswith(b"HTTP/1"), data
    frames, off = [], 0
    while off + 9 <= len(data):
        length = int.from_bytes(data[off:off + 3], "big")
        frames.append(data[off + 3])
        off += 9 + length
    assert 7 in frames, data


def test_http2_preface_in_pieces_is_still_http2(bsfd):
    """The preface split over several reads is recognised byte by byte."""
    import h2.config
    import h2.connection
    import h2.events
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.send_headers(1, [(":method", "GET"), (":scheme", "http"), (":authority", "bsf"),
                          (":path", API + "/pcfBindings?ipv4Addr=10.0.0.1")], end_stream=True)
    data = conn.data_to_send()
    assert data.startswith(PREFACE)
    with socket.create_connection(("127.0.0.1", bsfd.sbi_port), timeout=5) as sock:
        for piece in (data[:1], data[1:3], data[3:20], data[20:]):
            sock.sendall(piece)
            time.sleep(0.05)
        deadline, status = time.monotonic() + 5, None
        while status is None and (chunk := recv_before(sock, deadline)):
            for event in conn.receive_data(chunk):
                if isinstance(event, h2.events.ResponseReceived):
                    status = dict(event.headers)[b":status"]
            sock.sendall(conn.data_to_send())
    assert status in (b"200", b"204"), status


def test_stream_id_lower_than_a_previous_one_is_a_protocol_error(bsfd):
    """RFC 9113 §5.1.1: a new stream's id must be above every id the client used."""
    import h2.config
    import h2.connection
    import h2.events
    import h2.settings
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    headers = [(":method", "GET"), (":scheme", "http"), (":authority", "bsf"),
               (":path", API + "/pcfBindings?ipv4Addr=10.0.0.1")]
    conn.send_headers(5, headers, end_stream=True)
    first = conn.data_to_send()
    # stream 3 after 5: h2 refuses to build it, so a second client encodes it
    other = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    other.initiate_connection()
    other.data_to_send()
    other.send_headers(3, headers, end_stream=True)
    late = other.data_to_send()
    with socket.create_connection(("127.0.0.1", bsfd.sbi_port), timeout=5) as sock:
        sock.sendall(first + late)
        deadline, goaway = time.monotonic() + 5, None
        try:
            while goaway is None and (chunk := recv_before(sock, deadline)):
                for event in conn.receive_data(chunk):
                    if isinstance(event, h2.events.ConnectionTerminated):
                        goaway = event
        except ConnectionResetError:
            pass
    assert goaway is not None and goaway.error_code == 1, goaway  # PROTOCOL_ERROR


# --- dual stack ------------------------------------------------------------------------------

def test_ipv4_and_ipv6_listeners_at_once(bsfd_factory):
    """sbi.listen on 127.0.0.1 and sbi.listen_also on [::1]: one service, one store."""
    if not ipv6_loopback():
        pytest.skip("no IPv6 loopback on this machine")
    from conftest import free_ports
    import httpx
    (v6_port,) = free_ports(1)
    server = bsfd_factory({"sbi.listen_also": f"[::1]:{v6_port}"})
    ue = Ue()
    created = server.client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4))
    assert created.status_code == 201, describe(created)
    with httpx.Client(http1=False, http2=True, timeout=10,
                      base_url=f"http://[::1]:{v6_port}{API}") as v6:
        found = v6.get("/pcfBindings", params={"ipv4Addr": ue.ipv4})
        assert found.status_code == 200, describe(found)
        assert found.json()["ipv4Addr"] == ue.ipv4
        other = Ue()
        assert v6.post("/pcfBindings", json=binding(ipv4Addr=other.ipv4)).status_code == 201
    assert server.client.get("/pcfBindings",
                             params={"ipv4Addr": other.ipv4}).status_code == 200
    assert f"also on h2c [::1]:{v6_port}" in server.stderr_text()
    # the answers of both listeners' workers are counted in one set of metrics
    from support import metrics
    created = sum(v for k, v in metrics(server).items()
                  if k.startswith("bsf_sbi_responses_total{") and 'status="201"' in k)
    assert created == 2, metrics(server)


def test_listen_also_must_be_host_port(tmp_path):
    import subprocess
    from conftest import BSFD
    done = subprocess.run([str(BSFD), "--set", f"store.path={tmp_path}", "--set",
                           "sbi.listen_also=[::1]", "--set", "ops.listen=", "--set",
                           "ops.admin_listen="], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "sbi.listen_also" in done.stderr, done.stderr[-2000:]
