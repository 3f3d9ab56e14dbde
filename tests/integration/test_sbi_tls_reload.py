"""Certificates and keys that change (issue 13 §3): the SBI certificate and the OAuth2 keys
are reloaded when their files change (tls.reload_interval_s), without a restart and without
dropping established connections; a bad new file keeps the old one and says why; the time
left on the certificate is a gauge, and a warning is logged before it expires.
"""

import os
import shutil
import threading
import time

import pytest

from conftest import free_ports
from support import Ue, assert_binding, binding, post_binding, wait_until
from test_sbi_oauth2 import BSF_ID, Nrf
from tls_support import H2Tls, Pki, client_context

DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=192.0.2.3"


def put(path, data):
    """Replaces a file the way a deployment does (a new inode, renamed over the old one)."""
    tmp = path.with_name(path.name + ".new")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def metric(server, name, **labels):
    want = name + ("{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else "")
    for line in server.ops.get("/metrics").text.splitlines():
        if line.startswith(want + " "):
            return int(line.split()[1])
    return None


@pytest.fixture
def pki(tmp_path):
    pki = Pki(tmp_path / "pki")
    pki.first = pki.issue("first", "127.0.0.1", days=20)
    pki.second = pki.issue("second", "127.0.0.1", days=200)
    return pki


@pytest.fixture
def server(bsfd_factory, pki, tmp_path):
    """TLS only, reload checked every second; its files are copies the test replaces."""
    cert, key = tmp_path / "sbi.pem", tmp_path / "sbi.key"
    shutil.copy(pki.first[0], cert)
    shutil.copy(pki.first[1], key)
    port, = free_ports(1)
    srv = bsfd_factory({"sbi.listen": "", "sbi.tls.listen": f"127.0.0.1:{port}",
                        "sbi.tls.cert": cert, "sbi.tls.key": key,
                        "tls.reload_interval_s": "1", "tls.expiry_warning_days": "7"},
                       tls_client=client_context(pki))
    srv.tls_port, srv.cert, srv.key = port, cert, key
    return srv


def served_cert(server, pki):
    conn = H2Tls(server.tls_port, client_context(pki))
    try:
        assert conn.request("GET", DISCOVERY)[0] == 204
        return conn.peer_cert
    finally:
        conn.close()


def der(pem_path):
    import ssl
    return ssl.PEM_cert_to_DER_cert(pem_path.read_text())


class Load:
    """Requests on connections opened before the reload, until stopped; counts failures."""

    def __init__(self, server, pki, connections=4):
        self.conns = [H2Tls(server.tls_port, client_context(pki)) for _ in range(connections)]
        self.done, self.failures = 0, []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(c,)) for c in self.conns]
        for t in self.threads:
            t.start()

    def run(self, conn):
        while not self.stop.is_set():
            try:
                status, _, _ = conn.request("GET", DISCOVERY)
                if status != 204:
                    self.failures.append(status)
                self.done += 1
            except Exception as error:  # noqa: BLE001 - any failure is the finding
                self.failures.append(repr(error))
                return

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=20)
        for c in self.conns:
            c.close()


def test_a_new_certificate_is_served_to_new_connections_while_old_ones_keep_working(server,
                                                                                    pki):
    assert served_cert(server, pki) == der(pki.first[0])
    before = metric(server, "bsf_tls_cert_expiry_seconds", cert="sbi")
    assert 19 * 86400 < before <= 20 * 86400, before
    load = Load(server, pki)
    try:
        time.sleep(0.5)
        put(server.key, pki.second[1].read_bytes())
        put(server.cert, pki.second[0].read_bytes())
        wait_until(lambda: served_cert(server, pki) == der(pki.second[0]), timeout=15,
                   what="new connections get the new certificate")
        done_at_reload = load.done
        time.sleep(1.0)
        # the connections made before the reload still carry requests, with the old cert
        assert load.done > done_at_reload, load.done
        assert all(c.peer_cert == der(pki.first[0]) for c in load.conns)
    finally:
        load.finish()
    assert not load.failures, load.failures[:5]
    assert metric(server, "bsf_tls_reloads_total", file="sbi", result="ok") >= 1
    after = metric(server, "bsf_tls_cert_expiry_seconds", cert="sbi")
    assert 199 * 86400 < after <= 200 * 86400, after


@pytest.mark.parametrize("bad", ["junk", "empty", "key of another certificate"])
def test_a_bad_new_file_keeps_the_old_certificate_and_says_why(server, pki, bad):
    refused = metric(server, "bsf_tls_reloads_total", file="sbi", result="refused")
    conn = H2Tls(server.tls_port, client_context(pki))
    try:
        if bad == "junk":
            put(server.cert, b"-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n")
        elif bad == "empty":
            put(server.cert, b"")
        else:
            put(server.key, pki.second[1].read_bytes())
        wait_until(lambda: metric(server, "bsf_tls_reloads_total", file="sbi",
                                  result="refused") > refused, timeout=15, what="refusal")
        assert "sbi.tls: new files refused, the old certificate stays" in server.stderr_text()
        assert served_cert(server, pki) == der(pki.first[0])  # new connections: the old one
        assert conn.request("GET", DISCOVERY)[0] == 204
    finally:
        conn.close()
    # fixing the files is picked up
    put(server.key, pki.second[1].read_bytes())
    put(server.cert, pki.second[0].read_bytes())
    wait_until(lambda: served_cert(server, pki) == der(pki.second[0]), timeout=15,
               what="the fixed files are loaded")


def test_a_certificate_near_its_end_is_warned_about(bsfd_factory, pki):
    short = pki.issue("short", "127.0.0.1", days=3)
    port, = free_ports(1)
    srv = bsfd_factory({"sbi.tls.listen": f"127.0.0.1:{port}", "sbi.tls.cert": short[0],
                        "sbi.tls.key": short[1], "tls.expiry_warning_days": "7"})
    wait_until(lambda: "the sbi certificate expires in" in srv.stderr_text(), timeout=10,
               what="the expiry warning")
    left = metric(srv, "bsf_tls_cert_expiry_seconds", cert="sbi")
    assert 2 * 86400 < left <= 3 * 86400, left


def test_a_certificate_far_from_its_end_is_not_warned_about(server):
    time.sleep(1.5)
    assert "certificate expires in" not in server.stderr_text()


# ---- OAuth2 keys ---------------------------------------------------------------------------

@pytest.fixture
def oauth2_server(bsfd_factory, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old, new = Nrf(tmp_path / "old"), Nrf(tmp_path / "new")
    keys = tmp_path / "keys.pem"
    shutil.copy(old.keys, keys)
    srv = bsfd_factory({"sbi.oauth2.required": "true", "sbi.oauth2.keys": keys,
                        "nf.instance_id": BSF_ID, "tls.reload_interval_s": "1"})
    srv.keys, srv.old, srv.new = keys, old, new
    return srv


def registers(server, token):
    ue = Ue()
    resp = post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4),
                        {"authorization": f"Bearer {token}"})
    return resp.status_code


def test_new_oauth2_keys_are_used_without_a_restart(oauth2_server):
    srv = oauth2_server
    old_token, new_token = srv.old.token("ES256"), srv.new.token("RS256")
    assert registers(srv, old_token) == 201  # accepted once: cached by the worker
    assert registers(srv, new_token) == 401
    put(srv.keys, srv.new.keys.read_bytes())
    wait_until(lambda: metric(srv, "bsf_tls_reloads_total", file="oauth2_keys",
                              result="ok") >= 1, timeout=15, what="the key reload")
    assert registers(srv, new_token) == 201
    # a token of a key that left the file is refused, even one accepted (cached) before
    for _ in range(4):  # every worker
        assert registers(srv, old_token) == 401


def test_a_bad_oauth2_key_file_keeps_the_old_keys(oauth2_server):
    srv = oauth2_server
    token = srv.old.token("RS256")
    assert registers(srv, token) == 201
    put(srv.keys, b"no keys in here\n")
    wait_until(lambda: metric(srv, "bsf_tls_reloads_total", file="oauth2_keys",
                              result="refused") >= 1, timeout=15, what="the refusal")
    assert "sbi.oauth2.keys: new file refused, the old keys stay" in srv.stderr_text()
    assert registers(srv, srv.old.token("ES256")) == 201
    resp = post_binding(srv.reconnect(), binding(ipv4Addr=Ue().ipv4),
                        {"authorization": f"Bearer {token}"})
    assert_binding(resp, 201)
