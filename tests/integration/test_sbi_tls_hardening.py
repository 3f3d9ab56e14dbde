"""The SBI hardening of issue 9 on TLS connections too (issue 13 §1): the preface deadline
covers the TLS handshake, the idle timeout's GOAWAY goes out inside TLS (then close_notify),
and each TLS connection is counted in the worker's memory budget.
"""

import socket
import ssl
import time

import h2.events
import pytest

from conftest import free_ports
from support import wait_until
from tls_support import H2Tls, client_context, server_pki, tls_connect


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return server_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def server(module_bsfd_factory, pki):
    port, = free_ports(1)
    cert, key = pki.server
    srv = module_bsfd_factory({"sbi.tls.listen": f"127.0.0.1:{port}", "sbi.tls.cert": cert,
                               "sbi.tls.key": key, "sbi.preface_timeout_s": "1",
                               "sbi.idle_timeout_s": "2", "sbi.workers": "1"})
    srv.tls_port = port
    return srv


def metric(server, name):
    for line in server.ops.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return int(line.split()[1])
    raise AssertionError(name)


def closed_within(sock, seconds):
    sock.settimeout(seconds)
    start = time.monotonic()
    try:
        while sock.recv(4096):
            pass
    except (ssl.SSLError, ConnectionResetError):
        pass
    return time.monotonic() - start


def test_a_client_that_never_starts_the_handshake_is_closed(server):
    sock = socket.create_connection(("127.0.0.1", server.tls_port))
    try:
        assert closed_within(sock, 10) < 5
    finally:
        sock.close()
    text = server.ops.get("/metrics").text
    assert 'bsf_sbi_timeouts_total{phase="preface"}' in text


def test_a_client_that_stops_after_the_handshake_is_closed(server, pki):
    sock = tls_connect(server.tls_port, client_context(pki))
    try:
        assert sock.selected_alpn_protocol() == "h2"
        assert closed_within(sock, 10) < 5  # no HTTP/2 preface: the preface deadline
    finally:
        sock.close()


def test_the_idle_goaway_arrives_inside_tls(server, pki):
    conn = H2Tls(server.tls_port, client_context(pki))
    try:
        status, _, _ = conn.request("GET", "/nbsf-management/v1/pcfBindings?ipv4Addr=192.0.2.9")
        assert status == 204
        conn.sock.settimeout(10)
        events = []
        while True:
            data = conn.sock.recv(4096)  # decrypted: a GOAWAY frame, then close_notify (b"")
            if not data:
                break
            events += conn.conn.receive_data(data)
        goaway = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
        assert goaway and goaway[0].error_code == 0, events
    finally:
        conn.sock.close()


def test_tls_connections_are_counted_in_the_worker_budget(server, pki):
    before = metric(server, "bsf_sbi_connection_memory_bytes")
    conns = [H2Tls(server.tls_port, client_context(pki)) for _ in range(10)]
    try:
        wait_until(lambda: metric(server, "bsf_sbi_connections") >= 10, timeout=5)
        held = metric(server, "bsf_sbi_connection_memory_bytes") - before
        assert held >= 10 * 40960, held
    finally:
        for c in conns:
            c.close()
    wait_until(lambda: metric(server, "bsf_sbi_connection_memory_bytes") <= before,
               timeout=10, what="the budget is given back")
