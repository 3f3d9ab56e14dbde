"""Diameter over TLS (seed 3.10.2, RFC 6733 §2.1: TLS from the connection's start on its own
port): an AF reaches the gateway over TLS, the gateway reaches a PCF over TLS, both checked
against a test CA whose certificates name the Diameter identities; clear, untrusted, wrongly
named and version-mismatched connections are refused; the certificate's end of validity is a
metric; bad TLS settings stop bsfd at start."""

import calendar
import socket
import ssl
import subprocess
import time

import pytest

from conftest import assert_no_sanitizer_report, free_ports, refused_at_start
from diameter_wire import DISCONNECT_CAUSE, WirePeer
from rx_support import AF_ID, BSF_ID, REALM, RxPeer, metric, peer_up, rx_lab  # noqa: F401
from support import Ue, wait_until

AF2_ID = "af2.test.local"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


class Pki:
    """A test CA, certificates of `names` signed by it (CN and DNS SAN = the name), and a
    second, untrusted CA with its own certificate for the AF's name."""

    def __init__(self, root, names):
        self.dir = root
        root.mkdir(exist_ok=True)
        for ca in ("ca", "rogue-ca"):
            openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
                    "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-subj", f"/CN={ca}", cwd=root)
        for name in names:
            self._issue(name, name, "ca")
        self._issue("rogue-af", AF_ID, "rogue-ca")

    def _issue(self, stem, name, ca):
        (self.dir / f"{stem}.ext").write_text(
            f"subjectAltName=DNS:{name}\nbasicConstraints=CA:FALSE\n"
            "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{stem}.key",
                "-out", f"{stem}.csr", "-subj", f"/CN={name}", cwd=self.dir)
        openssl("x509", "-req", "-in", f"{stem}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
                "-CAcreateserial", "-days", "30", "-out", f"{stem}.pem", "-extfile", f"{stem}.ext",
                cwd=self.dir)

    def path(self, name):
        return str(self.dir / name)

    def settings(self, tls_port, **extra):
        s = {"diameter.tls.cert": self.path(f"{BSF_ID}.pem"),
             "diameter.tls.key": self.path(f"{BSF_ID}.key"),
             "diameter.tls.ca": self.path("ca.pem"), "diameter.tls.port": tls_port}
        s.update(extra)
        return s

    def peer_args(self, name, stem=None):
        stem = stem or name
        return ["--tls-cert", self.path(f"{stem}.pem"), "--tls-key", self.path(f"{stem}.key"),
                "--tls-ca", self.path("ca.pem")]

    def not_after(self, name):
        out = subprocess.run(["openssl", "x509", "-noout", "-enddate", "-in", self.path(name)],
                             check=True, capture_output=True, text=True).stdout
        when = out.strip().split("=", 1)[1]  # "Dec 30 09:38:44 2026 GMT"
        return calendar.timegm(time.strptime(when, "%b %d %H:%M:%S %Y %Z"))


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return Pki(tmp_path_factory.mktemp("pki"), [BSF_ID, AF_ID, "pcf1.test.local", AF2_ID])


def tls_client(port, pki, cert="af.test.local", **context):
    """A TLS handshake to bsfd's TLS port as an AF would make it; returns the socket."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(pki.path("ca.pem"))
    ctx.load_cert_chain(pki.path(f"{cert}.pem"), pki.path(f"{cert}.key"))
    for key, value in context.items():
        setattr(ctx, key, value)
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    return ctx.wrap_socket(raw, server_hostname=BSF_ID)


def refused(connect):
    """Runs `connect` (a TLS handshake and/or CER) and returns how it was refused: an
    exception other than a timeout (a refusal, not a silent server), or fails the test."""
    try:
        peer = connect()
    except TimeoutError as e:
        pytest.fail(f"no answer instead of a refusal: {e!r}")
    except (AssertionError, OSError) as e:
        return e
    peer.close()
    pytest.fail("the connection was accepted")


def test_af_over_tls_is_proxied_and_the_certificate_expiry_is_a_metric(rx_lab, pki):
    (tls_port,) = free_ports(1)
    lab = rx_lab(settings=pki.settings(tls_port, **{"diameter.accept": "*"}),
                 af_args=["--peer-port", tls_port, "--tls-connect", *pki.peer_args(AF_ID)])
    ue = Ue()
    lab.register(ue)
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    assert metric(lab.bsfd, "ocbsf_diam_peer_tls", peer=AF_ID) == 1
    assert metric(lab.bsfd, "ocbsf_diam_peer_tls", peer="pcf1.test.local") == 0
    assert metric(lab.bsfd, "dgw_tls_cert_expiration_seconds") == pki.not_after(f"{BSF_ID}.pem")
    # seed 3.10.2's connection gauges: the AF connected to us over TLS, we to the PCF in clear
    assert metric(lab.bsfd, "diam_conn_network_responder", peer=AF_ID, tls="true") == 1
    assert metric(lab.bsfd, "diam_conn_network", peer="pcf1.test.local", tls="false") == 1
    # the clear port still serves peers that do not use TLS
    wire = WirePeer(lab.diameter_port, "wire.test.local", REALM)
    wait_until(lambda: peer_up(lab.bsfd, "wire.test.local"), what="the clear peer")
    assert metric(lab.bsfd, "ocbsf_diam_peer_tls", peer="wire.test.local") == 0
    wire.close()


def test_the_gateway_reaches_a_pcf_over_tls(rx_lab, pki):
    tls_port, pcf_tls_port = free_ports(2)
    settings = pki.settings(tls_port)
    lab = rx_lab(settings=settings, pcf_args=["--tls-port", pcf_tls_port,
                                              *pki.peer_args("pcf1.test.local")],
                 tls_pcfs={"pcf1.test.local": pcf_tls_port})
    assert metric(lab.bsfd, "ocbsf_diam_peer_tls", peer="pcf1.test.local") == 1
    assert metric(lab.bsfd, "diam_conn_network", peer="pcf1.test.local", tls="true") == 1
    ue = Ue()
    lab.register(ue)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001


def test_clear_untrusted_and_misnamed_connections_are_refused(rx_lab, pki):
    (tls_port,) = free_ports(1)
    lab = rx_lab(settings=pki.settings(tls_port, **{"diameter.tls.required": "true",
                                                    "diameter.accept": "*"}),
                 af_args=["--peer-port", tls_port, "--tls-connect", *pki.peer_args(AF_ID)])
    # in clear on the clear port: CEA 5017 DIAMETER_NO_COMMON_SECURITY
    why = refused(lambda: WirePeer(lab.diameter_port, "clear.test.local", REALM))
    assert "5017" in str(why), why
    # in clear on the TLS port: no CEA
    refused(lambda: WirePeer(tls_port, "clear.test.local", REALM))
    # a certificate from another CA: the handshake fails
    refused(lambda: WirePeer.over(tls_client(tls_port, pki, cert="rogue-af"), AF_ID, REALM))
    # a trusted certificate whose name is not the Origin-Host of the CER: refused
    refused(lambda: WirePeer.over(tls_client(tls_port, pki, cert="pcf1.test.local"),
                                  "other-af.test.local", REALM))
    assert peer_up(lab.bsfd, AF_ID)
    assert not peer_up(lab.bsfd, "other-af.test.local")


def test_a_tls_version_the_gateway_does_not_allow_is_refused(rx_lab, pki):
    (tls_port,) = free_ports(1)
    lab = rx_lab(settings=pki.settings(tls_port, **{
        "diameter.tls.priority": "NORMAL:-VERS-ALL:+VERS-TLS1.2", "diameter.accept": "*"}))
    refused(lambda: WirePeer.over(
        tls_client(tls_port, pki, cert=AF2_ID, minimum_version=ssl.TLSVersion.TLSv1_3),
        AF2_ID, REALM))
    sock = tls_client(tls_port, pki, cert=AF2_ID, maximum_version=ssl.TLSVersion.TLSv1_2)
    assert sock.version() == "TLSv1.2"
    peer = WirePeer.over(sock, AF2_ID, REALM)
    wait_until(lambda: peer_up(lab.bsfd, AF2_ID), what="the TLS 1.2 peer")
    assert metric(lab.bsfd, "ocbsf_diam_peer_tls", peer=AF2_ID) == 1
    peer.close()


def refused_with_diameter(tmp_path, settings, timeout=30):
    """refused_at_start with the Rx gateway on (this identity and realm) and `settings`."""
    return refused_at_start(tmp_path, {"diameter.enabled": "true", "diameter.identity": BSF_ID,
                                       "diameter.realm": REALM, **settings}, timeout=timeout)


@pytest.mark.parametrize("settings, message", [
    ({"diameter.tls.cert": "/nonexistent.pem", "diameter.tls.key": "/nonexistent.key",
      "diameter.tls.ca": "/nonexistent-ca.pem"}, "diameter.tls.cert: cannot read"),
    ({"diameter.tls.key": "/tmp/x.key"}, "diameter.tls.cert"),
    ({"diameter.peers": "pcf1.test.local=127.0.0.1:5868 tls"}, "diameter.tls.cert"),
    ({"diameter.peers": "pcf1.test.local=127.0.0.1:5868 tsl"}, "only 'tls', 'tls=1.2' or"),
    ({"diameter.peers": "pcf1.test.local=127.0.0.1:5868 tls=1.1"}, "only 'tls', 'tls=1.2' or"),
])
def test_bad_tls_settings_stop_bsfd_at_start(tmp_path, settings, message):
    stderr = refused_with_diameter(tmp_path, settings, timeout=10)
    assert message in stderr, stderr


@pytest.mark.parametrize("cert, message", [
    (AF_ID, "does not name bsf.test.local"),
    ("rogue-af", "does not name bsf.test.local"),
])
def test_an_unusable_certificate_stops_bsfd(tmp_path, pki, cert, message):
    stderr = refused_with_diameter(tmp_path, pki.settings(free_ports(1)[0], **{
        "diameter.tls.cert": pki.path(f"{cert}.pem"), "diameter.tls.key": pki.path(f"{cert}.key")}))
    assert "diameter.tls.cert" in stderr and message in stderr, stderr


def test_a_certificate_from_another_ca_stops_bsfd(tmp_path, pki):
    stderr = refused_with_diameter(tmp_path, pki.settings(free_ports(1)[0], **{
        "diameter.tls.ca": pki.path("rogue-ca.pem")}))
    assert "does not verify against" in stderr, stderr


def test_a_known_peer_reconnecting_with_another_certificate_is_refused(rx_lab, pki):
    """libfdcore validates a peer's first connection only; a later one under the same
    identity must still present a certificate naming it."""
    (tls_port,) = free_ports(1)
    lab = rx_lab(settings=pki.settings(tls_port, **{"diameter.accept": "*"}))
    first = WirePeer.over(tls_client(tls_port, pki, cert=AF2_ID), AF2_ID, REALM)
    wait_until(lambda: peer_up(lab.bsfd, AF2_ID), what="the first connection")
    assert metric(lab.bsfd, "diam_conn_network_responder", peer=AF2_ID, tls="true") == 1
    first.close()
    wait_until(lambda: not peer_up(lab.bsfd, AF2_ID), what="the first connection's end")
    assert metric(lab.bsfd, "diam_conn_network_responder", peer=AF2_ID, tls="true") == 0
    refused(lambda: WirePeer.over(tls_client(tls_port, pki, cert="pcf1.test.local"),
                                  AF2_ID, REALM))
    assert not peer_up(lab.bsfd, AF2_ID)
    again = WirePeer.over(tls_client(tls_port, pki, cert=AF2_ID), AF2_ID, REALM)
    wait_until(lambda: peer_up(lab.bsfd, AF2_ID), what="a proper reconnection")
    again.close()


def test_a_configured_peer_connecting_with_another_certificate_is_disconnected(bsfd_factory,
                                                                                pki):
    """libfdcore does not validate peers of diameter.peers when they connect to us: the
    gateway checks their certificate once the connection is open and sends DPR at once."""
    port, tls_port, nobody = free_ports(3)
    settings = {"diameter.enabled": "true", "diameter.identity": BSF_ID, "diameter.realm": REALM,
                "diameter.port": port, "diameter.reconnect_s": "1",
                "diameter.peers": f"pcf9.test.local=127.0.0.1:{nobody} tls"}
    settings.update(pki.settings(tls_port))
    bsfd = bsfd_factory(settings)
    impostor = WirePeer.over(tls_client(tls_port, pki, cert=AF2_ID), "pcf9.test.local", REALM)
    wait_until(lambda: impostor.dprs(), what="a DPR to the impostor")
    assert impostor.dprs()[0].u32(DISCONNECT_CAUSE) == 2  # DO_NOT_WANT_TO_TALK_TO_YOU
    wait_until(lambda: impostor.closed_at, what="the impostor's connection to close")
    assert "its TLS certificate does not name it" in bsfd.stderr_text()
    assert not peer_up(bsfd, "pcf9.test.local")
    failed = {reason: metric(bsfd, "diam_failed_conn_network_total", peer="pcf9.test.local",
                             reason=reason) for reason in ("certificate", "connect")}
    assert failed["certificate"] == 1, failed
    # and bsfd's own attempts to reach it, where nothing listens, fail every second
    wait_until(lambda: metric(bsfd, "diam_failed_conn_network_total", peer="pcf9.test.local",
                              reason="connect") >= 1, what="a failed connection attempt")


def test_a_configured_peer_can_be_held_to_one_tls_version(bsfd_factory, tmp_path, pki):
    """`ID=HOST:PORT tls=1.2` (or 1.3): only that version towards that peer. A PCF that speaks
    TLS 1.3 only is never reached with tls=1.2 (each attempt counts as a failed connection)
    and is reached with tls=1.3."""
    port, tls_port, pcf_port, pcf_tls_port = free_ports(4)
    pcf = RxPeer("pcf", tmp_path, "pcf1.test.local",
                 ["--realm", REALM, "--port", pcf_port, "--accept", BSF_ID, "--tc-timer", "1",
                  "--tls-port", pcf_tls_port, "--tls-priority", "NORMAL:-VERS-ALL:+VERS-TLS1.3",
                  *pki.peer_args("pcf1.test.local")])
    try:
        settings = {"diameter.enabled": "true", "diameter.identity": BSF_ID,
                    "diameter.realm": REALM, "diameter.port": port, "diameter.reconnect_s": "1",
                    "diameter.peers": f"pcf1.test.local=127.0.0.1:{pcf_tls_port} tls=1.2"}
        settings.update(pki.settings(tls_port))
        held = bsfd_factory(settings)
        wait_until(lambda: metric(held, "diam_failed_conn_network_total", peer="pcf1.test.local",
                                  reason="connect") >= 2, what="two failed attempts")
        assert not peer_up(held, "pcf1.test.local")
        held.stop()
        settings["diameter.peers"] = f"pcf1.test.local=127.0.0.1:{pcf_tls_port} tls=1.3"
        allowed = bsfd_factory(settings)
        wait_until(lambda: peer_up(allowed, "pcf1.test.local"), what="the TLS 1.3 connection")
        assert metric(allowed, "diam_conn_network", peer="pcf1.test.local", tls="true") == 1
    finally:
        pcf.stop()
    assert_no_sanitizer_report(pcf.stderr_path.read_text(errors="replace"), "pcf1.test.local")
