"""Connection hygiene of the SBI server: idle connections are closed (GOAWAY), and a worker
refuses connections beyond sbi.max_connections."""

import socket
import time

import h2.config
import httpx
import h2.connection
import h2.events

from support import recv_before, wait_until


def open_h2(port):
    """A raw HTTP/2 connection that has sent its preface and SETTINGS."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def read_until_closed(sock, conn, timeout):
    """Reads until the server closes the connection; returns (closed, goaway_seen)."""
    deadline = time.monotonic() + timeout
    goaway = False
    while (data := recv_before(sock, deadline)) is not None:
        if not data:
            return True, goaway
        for event in conn.receive_data(data):
            goaway |= isinstance(event, h2.events.ConnectionTerminated)
        pending = conn.data_to_send()
        if pending:
            sock.sendall(pending)
    return False, goaway


def test_idle_connection_gets_goaway_and_is_closed(bsfd_factory):
    server = bsfd_factory({"sbi.idle_timeout_s": 1})
    sock, conn = open_h2(server.sbi_port)
    started = time.monotonic()
    closed, goaway = read_until_closed(sock, conn, timeout=6)
    sock.close()
    assert closed, "an idle connection stayed open"
    assert goaway, "the server closed without a GOAWAY"
    assert time.monotonic() - started >= 0.9, "closed before the idle timeout"
    # A busy client is not cut: requests keep its connection alive past the timeout.
    client = server.new_client()
    for _ in range(6):
        assert client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}).status_code == 204
        time.sleep(0.4)
    client.close()


def test_connections_beyond_the_limit_are_refused(bsfd_factory):
    server = bsfd_factory({"sbi.max_connections": 2, "sbi.workers": 1, "sbi.idle_timeout_s": 0})
    first = [open_h2(server.sbi_port) for _ in range(2)]
    time.sleep(0.2)
    extra_sock, extra_conn = open_h2(server.sbi_port)
    closed, _ = read_until_closed(extra_sock, extra_conn, timeout=5)
    extra_sock.close()
    assert closed, "a third connection was accepted with sbi.max_connections = 2"
    for sock, conn in first:
        still_open, _ = read_until_closed(sock, conn, timeout=0.3)
        assert not still_open, "a connection within the limit was closed"
    for sock, _ in first:
        sock.close()
    # Closing connections frees their places (once the worker has seen them close).
    def served():
        try:
            with server.new_client() as client:
                return client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}).status_code
        except httpx.HTTPError:
            return None
    assert wait_until(served, what="a connection accepted again") == 204
