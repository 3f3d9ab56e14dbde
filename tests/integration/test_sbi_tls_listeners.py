"""TLS beside the other SBI listener features (issue 13 §1 with §6 and seed §3.8): TLS answers
carry the same Date and Server headers as h2c ones, an HTTP/1.1 request line inside TLS never
gets the cleartext port's HTTP/1.1 505, and the `sbi.listen_also` listeners stay cleartext
while the one TLS listener belongs to the primary server.
"""

import socket
import ssl

import httpx
import pytest

from conftest import free_ports
from support import Ue, assert_binding, binding, post_binding
from tls_support import H2Tls, client_context, server_pki, tls_connect

DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=192.0.2.1"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return server_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def server(module_bsfd_factory, pki):
    """h2c on sbi.listen and on a second address (sbi.listen_also), TLS on a third port."""
    tls_port, also_port = free_ports(2)
    cert, key = pki.server
    srv = module_bsfd_factory({"sbi.tls.listen": f"127.0.0.1:{tls_port}", "sbi.tls.cert": cert,
                               "sbi.tls.key": key,
                               "sbi.listen_also": f"127.0.0.1:{also_port}"})
    srv.tls_port, srv.also_port = tls_port, also_port
    return srv


def test_tls_answers_carry_date_and_server(server, pki):
    conn = H2Tls(server.tls_port, client_context(pki))
    try:
        status, headers, body = conn.request("GET", DISCOVERY)
    finally:
        conn.close()
    assert status in (200, 204, 404), body
    assert headers.get("date", "").endswith(" GMT"), headers
    assert "server" in headers, headers


def test_an_http1_request_inside_tls_gets_no_http1_answer(server, pki):
    sock = tls_connect(server.tls_port, client_context(pki))
    data = b""
    try:
        assert sock.selected_alpn_protocol() == "h2"
        sock.sendall(b"GET /nbsf-management/v1/pcfBindings HTTP/1.1\r\nHost: x\r\n\r\n")
        while len(data) < 65536:
            try:
                chunk = sock.recv(4096)
            except (ssl.SSLError, OSError):
                break
            if not chunk:
                break
            data += chunk
    finally:
        sock.close()
    # HTTP/2 frames (the server's SETTINGS, then a GOAWAY), never an HTTP/1.1 status line
    assert b"HTTP/1.1" not in data, data
    assert len(data) >= 9 and data[3] == 0x4, data  # the first frame is SETTINGS


def test_listen_also_is_cleartext_and_tls_is_the_primary_servers(server, pki):
    ue = Ue()
    assert_binding(post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4, supi=ue.supi)), 201)
    # the sbi.listen_also address speaks h2c and sees the same store
    with httpx.Client(http1=False, http2=True, timeout=10,
                      base_url=f"http://127.0.0.1:{server.also_port}") as also:
        found = also.get("/nbsf-management/v1/pcfBindings", params={"ipv4Addr": ue.ipv4})
        assert found.status_code == 200 and found.http_version == "HTTP/2", found.text
    # ... and no TLS
    with pytest.raises((ssl.SSLError, OSError)):
        tls_connect(server.also_port, client_context(pki), timeout=5).close()
    # the TLS port serves the same bindings
    conn = H2Tls(server.tls_port, client_context(pki))
    try:
        status, _, body = conn.request("GET", f"/nbsf-management/v1/pcfBindings?ipv4Addr={ue.ipv4}")
    finally:
        conn.close()
    assert status == 200 and ue.supi.encode() in body, body
    # one TLS listener: the h2c addresses are listed, TLS once
    log = server.stderr_text()
    assert f"h2 over TLS 127.0.0.1:{server.tls_port}" in log, log[-2000:]
    assert f"also on h2c 127.0.0.1:{server.also_port}" in log, log[-2000:]


def test_tls_counters_sum_over_every_server(server, pki):
    H2Tls(server.tls_port, client_context(pki)).close()
    text = server.ops.get("/metrics").text
    ok = int(text.split("\nbsf_sbi_tls_handshakes_total ")[1].split()[0])
    assert ok >= 1, text


def test_the_tls_port_is_not_taken_by_the_also_servers(server):
    # the TLS port is bound once (by the primary server's workers); a cleartext prior-knowledge
    # client there gets no HTTP/2 service
    with socket.create_connection(("127.0.0.1", server.tls_port), timeout=5) as s:
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        s.settimeout(5)
        try:
            data = s.recv(100)
        except OSError:
            data = b""
    # a TLS alert record (content type 21) or a plain close, never an HTTP/2 SETTINGS frame
    assert not data or data[0] == 21, data
