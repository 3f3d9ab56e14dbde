"""HTTP/2 over TLS on the SBI (issue 13 §1; TS 33.501 §13.1, TS 33.210 §6.2): ALPN h2 only,
TLS 1.2 and 1.3 only, the cleartext listener beside or instead of it, https Location headers
when only TLS listens, start-up refusals that name the key. A per-run test CA made with the
`openssl` binary (tls_support.py); clients are Python's ssl + h2 / httpx and `openssl s_client`.
"""

import ssl
import subprocess

import httpx
import pytest

from conftest import Bsfd, free_ports
from support import Ue, assert_binding, binding, location_id, post_binding
from tls_support import H2Tls, client_context, server_pki, tls_connect

DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=192.0.2.1"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return server_pki(tmp_path_factory.mktemp("pki"))


def tls_settings(pki, port, **extra):
    cert, key = pki.server
    settings = {"sbi.tls.listen": f"127.0.0.1:{port}", "sbi.tls.cert": cert,
                "sbi.tls.key": key}
    settings.update(extra)
    return settings


@pytest.fixture(scope="module")
def both(module_bsfd_factory, pki):
    """Cleartext and TLS listeners at once."""
    port, = free_ports(1)
    server = module_bsfd_factory(tls_settings(pki, port))
    server.tls_port = port
    return server


@pytest.fixture(scope="module")
def tls_only(module_bsfd_factory, pki):
    port, = free_ports(1)
    server = module_bsfd_factory(tls_settings(pki, port, **{"sbi.listen": ""}),
                                 tls_client=client_context(pki))
    server.tls_port = port
    return server


def s_client(port, *args, stdin=b""):
    """`openssl s_client`; returns (exit code, stdout + stderr)."""
    done = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", *args],
                          input=stdin, capture_output=True, timeout=20)
    return done.returncode, (done.stdout + done.stderr).decode(errors="replace")


def test_h2_over_tls_and_h2c_serve_the_same_bindings(both, pki):
    ue = Ue()
    resp = post_binding(both.reconnect(), binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    assert_binding(resp, 201)
    conn = H2Tls(both.tls_port, client_context(pki))
    try:
        assert conn.sock.version() in ("TLSv1.2", "TLSv1.3")
        status, headers, body = conn.request("GET", f"/nbsf-management/v1/pcfBindings?ipv4Addr="
                                                    f"{ue.ipv4}")
        assert status == 200, body
        assert ue.supi.encode() in body
    finally:
        conn.close()
    # Both listeners: Location keeps the cleartext apiRoot.
    assert resp.headers["location"].startswith(f"http://127.0.0.1:{both.sbi_port}/"), resp.headers


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3])
def test_tls_1_2_and_1_3_are_served(both, pki, version):
    conn = H2Tls(both.tls_port, client_context(pki, minimum=version, maximum=version))
    try:
        assert conn.sock.version() == {ssl.TLSVersion.TLSv1_2: "TLSv1.2",
                                       ssl.TLSVersion.TLSv1_3: "TLSv1.3"}[version]
        status, _, _ = conn.request("GET", DISCOVERY)
        assert status == 204
    finally:
        conn.close()


@pytest.mark.parametrize("flag", ["-tls1_1", "-tls1"])
def test_tls_1_1_and_1_0_are_refused(both, flag):
    # SECLEVEL=0 lets this OpenSSL offer the old versions at all; the server must refuse.
    code, out = s_client(both.tls_port, flag, "-cipher", "DEFAULT@SECLEVEL=0", "-alpn", "h2")
    assert code != 0, out
    assert "alert protocol version" in out or "unsupported protocol" in out or \
        "no protocols available" in out, out


def test_a_client_offering_only_http_1_1_gets_no_service(both, pki):
    # RFC 7301 §3.2: the handshake fails with no_application_protocol
    with pytest.raises(ssl.SSLError, match="no application protocol"):
        tls_connect(both.tls_port, client_context(pki, alpn=("http/1.1",))).close()


def test_a_client_offering_no_alpn_is_closed_without_an_answer(both, pki):
    sock = tls_connect(both.tls_port, client_context(pki, alpn=None))
    try:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            data = sock.recv(100)
        except (ssl.SSLError, OSError):
            data = b""
        assert data == b"", data
    finally:
        sock.close()


def test_httpx_over_http_1_1_only_is_refused(both, pki):
    with httpx.Client(http1=True, http2=False, verify=client_context(pki, alpn=None)) as c:
        with pytest.raises(httpx.TransportError):
            c.get(f"https://127.0.0.1:{both.tls_port}{DISCOVERY}")


def test_the_tls_metrics_count_handshakes_and_refusals(both, pki):
    s_client(both.tls_port, "-alpn", "http/1.1")
    H2Tls(both.tls_port, client_context(pki)).close()
    text = both.ops.get("/metrics").text
    ok = int(text.split("\nbsf_sbi_tls_handshakes_total ")[1].split()[0])
    bad = int(text.split("\nbsf_sbi_tls_handshake_failures_total ")[1].split()[0])
    assert ok >= 1 and bad >= 1, text


def test_only_tls_listening_writes_https_locations(tls_only):
    ue = Ue()
    client = tls_only.reconnect()
    resp = post_binding(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    assert_binding(resp, 201)
    assert resp.http_version == "HTTP/2"
    assert resp.headers["location"].startswith(f"https://127.0.0.1:{tls_only.tls_port}/"), \
        resp.headers
    assert client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4}).status_code == 200
    assert client.delete(f"/pcfBindings/{location_id(resp)}").status_code == 204


def test_only_tls_listening_leaves_the_cleartext_port_closed(tls_only):
    with pytest.raises(OSError):
        import socket
        socket.create_connection(("127.0.0.1", tls_only.sbi_port), timeout=2).close()


# ---- start-up refusals ---------------------------------------------------------------------

def exits_with(tmp_path, settings):
    workdir = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
    workdir.mkdir()
    done = subprocess.run(Bsfd(workdir, settings).command(), capture_output=True, text=True,
                          timeout=30)
    return done.returncode, done.stderr


@pytest.mark.parametrize("which", ["sbi.tls.cert", "sbi.tls.key"])
def test_a_missing_certificate_or_key_stops_bsfd_naming_the_key(tmp_path, pki, which):
    code, stderr = exits_with(tmp_path, tls_settings(pki, 1, **{which: tmp_path / "nope.pem"}))
    assert code == 2, stderr
    assert f"{which}: cannot read" in stderr, stderr


def test_an_unreadable_key_stops_bsfd(tmp_path, pki):
    key = tmp_path / "key.pem"  # a directory: opens, but reads nothing (tests may run as root)
    key.mkdir()
    code, stderr = exits_with(tmp_path, tls_settings(pki, 1, **{"sbi.tls.key": key}))
    assert code == 2 and "sbi.tls.key: cannot load" in stderr, stderr


def test_a_file_that_is_no_certificate_stops_bsfd(tmp_path, pki):
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
    code, stderr = exits_with(tmp_path, tls_settings(pki, 1, **{"sbi.tls.cert": junk}))
    assert code == 2 and "sbi.tls.cert: cannot load" in stderr, stderr


def test_a_key_of_another_certificate_stops_bsfd(tmp_path, pki):
    _, other = pki.issue("other", "127.0.0.1")
    code, stderr = exits_with(tmp_path, tls_settings(pki, 1, **{"sbi.tls.key": other}))
    assert code == 2 and "sbi.tls.key" in stderr, stderr
    assert "is not the key of" in stderr or "key values mismatch" in stderr, stderr


@pytest.mark.parametrize("settings, key", [
    ({"sbi.tls.cert": ""}, "sbi.tls.cert"),
    ({"sbi.tls.client_cert": "required"}, "sbi.tls.ca"),
    ({"sbi.tls.ciphers": "NOTACIPHER"}, "sbi.tls.ciphers"),
    ({"sbi.tls.groups": "P-999"}, "sbi.tls.groups"),
])
def test_bad_tls_settings_stop_bsfd(tmp_path, pki, settings, key):
    code, stderr = exits_with(tmp_path, tls_settings(pki, 1, **settings))
    assert code == 2 and key in stderr, stderr


def test_no_listener_at_all_stops_bsfd(tmp_path):
    code, stderr = exits_with(tmp_path, {"sbi.listen": ""})
    assert code == 2 and "sbi.tls.listen" in stderr, stderr
