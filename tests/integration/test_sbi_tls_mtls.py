"""Mutual TLS on the SBI (issue 13 §1): sbi.tls.client_cert none | optional | required, with
a per-run CA, a good client certificate, a forged one (same subject form, another CA) and an
expired one. A refused certificate fails the handshake: it is never answered over HTTP.
"""

import ssl

import pytest

from conftest import free_ports
from tls_support import H2Tls, client_context, server_pki, tls_connect

DISCOVERY = "/nbsf-management/v1/pcfBindings?ipv4Addr=192.0.2.2"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    pki = server_pki(tmp_path_factory.mktemp("pki"))
    pki.good = pki.issue("pcf")
    pki.forged = pki.issue("forged", ca="forger", cn="pcf")
    pki.expired = pki.issue("expired", days=-1, cn="pcf")
    return pki


def start(factory, pki, mode):
    port, = free_ports(1)
    cert, key = pki.server
    server = factory({"sbi.tls.listen": f"127.0.0.1:{port}", "sbi.tls.cert": cert,
                      "sbi.tls.key": key, "sbi.tls.ca": pki.ca, "sbi.tls.client_cert": mode})
    server.tls_port = port
    return server


@pytest.fixture(scope="module")
def servers(module_bsfd_factory, pki):
    return {mode: start(module_bsfd_factory, pki, mode)
            for mode in ("none", "optional", "required")}


def served(server, ctx):
    """True when an HTTP/2 request over TLS is answered; False when the handshake (or the
    first read, TLS 1.3 sends the server's verdict on the client certificate after the
    client's Finished) fails. Never an HTTP answer for a refused certificate."""
    try:
        conn = H2Tls(server.tls_port, ctx)
    except (ssl.SSLError, OSError):
        return False
    try:
        status, _, _ = conn.request("GET", DISCOVERY)
        assert status == 204, status
        return True
    except (ssl.SSLError, ConnectionError, OSError):
        return False
    finally:
        conn.close()


CASES = {  # mode: (no certificate, good, forged, expired)
    "none": (True, True, True, True),
    "optional": (True, True, False, False),
    "required": (False, True, False, False),
}


@pytest.mark.parametrize("mode", CASES)
@pytest.mark.parametrize("which", ["no certificate", "good", "forged", "expired"])
def test_client_certificate_policy(servers, pki, mode, which):
    index = ["no certificate", "good", "forged", "expired"].index(which)
    cert = {"no certificate": None, "good": pki.good, "forged": pki.forged,
            "expired": pki.expired}[which]
    for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
        ctx = client_context(pki, cert=cert, minimum=version, maximum=version)
        assert served(servers[mode], ctx) == CASES[mode][index], (mode, which, version)


@pytest.mark.parametrize("which, alert", [("forged", "unknown ca"),
                                          ("expired", "certificate expired")])
def test_a_refused_certificate_gets_a_tls_alert_not_an_http_answer(servers, pki, which, alert):
    cert = getattr(pki, which)
    ctx = client_context(pki, cert=cert, maximum=ssl.TLSVersion.TLSv1_2)
    with pytest.raises(ssl.SSLError, match=alert):
        tls_connect(servers["optional"].tls_port, ctx).close()


def test_required_without_a_certificate_fails_the_handshake(servers, pki):
    ctx = client_context(pki, maximum=ssl.TLSVersion.TLSv1_2)
    with pytest.raises(ssl.SSLError, match="handshake failure|certificate required"):
        tls_connect(servers["required"].tls_port, ctx).close()


def test_refusals_are_counted(servers):
    text = servers["required"].ops.get("/metrics").text
    assert int(text.split("\nbsf_sbi_tls_handshake_failures_total ")[1].split()[0]) >= 3, text
