"""The admin listener (issue 13 §5): routes that change state are served on ops.admin_listen
only; off loopback it needs mTLS (ops.admin_tls.*) or a bearer token (ops.admin_token_file),
else bsfd refuses to start. A per-run CA (Python `cryptography`) makes the server certificate,
a good client certificate and a forged one (same subject, another CA).

Without the Rx gateway the admin listener has no routes: a request that passes the credential
check gets 404, one that does not gets 401 / 403 (the check comes first). The repaving routes
themselves, on the admin listener, are tested in test_rx_repaving.py.
"""

import datetime
import ssl
import subprocess

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conftest import Bsfd, free_ports

TOKEN = "s3cret-admin-token-0123456789abcdef"
ROUTE = "/oc-bsf-configuration/v1/diameterRepaving/status"


def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(subject_key, subject, issuer_key, issuer, ca=False, server=False):
    now = datetime.datetime.now(datetime.timezone.utc)
    b = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
         .public_key(subject_key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now - datetime.timedelta(minutes=5))
         .not_valid_after(now + datetime.timedelta(days=1))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        import ipaddress
        b = b.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
    elif not ca:
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), False)
    return b.sign(issuer_key, hashes.SHA256())


def _pem(obj):
    if isinstance(obj, x509.Certificate):
        return obj.public_bytes(serialization.Encoding.PEM)
    return obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class Pki:
    def __init__(self, d):
        ca_key, rogue_key = ec.generate_private_key(ec.SECP256R1()), \
            ec.generate_private_key(ec.SECP256R1())
        ca = _cert(ca_key, "test admin CA", ca_key, "test admin CA", ca=True)
        rogue = _cert(rogue_key, "test admin CA", rogue_key, "test admin CA", ca=True)
        files = {}
        for name, issuer_key, issuer, server in (("server", ca_key, ca, True),
                                                 ("client", ca_key, ca, False),
                                                 ("forged", rogue_key, rogue, False)):
            key = ec.generate_private_key(ec.SECP256R1())
            cert = _cert(key, f"bsf-admin-{name}", issuer_key, "test admin CA", server=server)
            (d / f"{name}.crt").write_bytes(_pem(cert))
            (d / f"{name}.key").write_bytes(_pem(key))
            files[name] = (str(d / f"{name}.crt"), str(d / f"{name}.key"))
        (d / "ca.crt").write_bytes(_pem(ca))
        self.ca = str(d / "ca.crt")
        self.server, self.client, self.forged = files["server"], files["client"], files["forged"]


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return Pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def token_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("admin") / "token"
    path.write_text(f"  {TOKEN}\n")
    return path


def start(bsfd_factory, **settings):
    port, = free_ports(1)
    listen = settings.pop("listen", "0.0.0.0")
    settings = {"ops.admin_listen": f"{listen}:{port}", **settings}
    return bsfd_factory(settings), port


def exits_with(tmp_path, settings):
    workdir = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
    workdir.mkdir()
    server = Bsfd(workdir, settings)
    done = subprocess.run(server.command(), capture_output=True, text=True, timeout=20)
    return done.returncode, done.stderr


# ---- start-up ----------------------------------------------------------------------------------

@pytest.mark.parametrize("listen", ["0.0.0.0", "::", "10.255.255.1"])
def test_off_loopback_without_credentials_bsfd_refuses_to_start(tmp_path, listen):
    host = f"[{listen}]" if ":" in listen else listen
    code, stderr = exits_with(tmp_path, {"ops.admin_listen": f"{host}:9091"})
    assert code == 2, stderr
    assert "ops.admin_listen" in stderr and "loopback" in stderr, stderr


@pytest.mark.parametrize("settings, key", [
    ({"ops.admin_tls.cert": "/x.crt"}, "ops.admin_tls.key"),
    ({"ops.admin_tls.key": "/x.key"}, "ops.admin_tls.cert"),
    ({"ops.admin_tls.ca": "/ca.crt"}, "ops.admin_tls.ca"),
])
def test_incomplete_tls_settings_stop_bsfd_with_exit_2(tmp_path, settings, key):
    code, stderr = exits_with(tmp_path, settings)
    assert code == 2 and key in stderr, stderr


def test_an_unreadable_or_short_token_file_stops_bsfd(tmp_path):
    code, stderr = exits_with(tmp_path, {"ops.admin_token_file": tmp_path / "missing"})
    assert code != 0 and "ops.admin_token_file" in stderr, stderr
    short = tmp_path / "short"
    short.write_text("abc\n")
    code, stderr = exits_with(tmp_path, {"ops.admin_token_file": short})
    assert code != 0 and "ops.admin_token_file" in stderr, stderr


def test_unreadable_tls_files_stop_bsfd_naming_the_key(tmp_path, pki):
    code, stderr = exits_with(tmp_path, {"ops.admin_tls.cert": tmp_path / "none.crt",
                                         "ops.admin_tls.key": pki.server[1],
                                         "ops.admin_tls.ca": pki.ca})
    assert code != 0 and "ops.admin_tls.cert" in stderr, stderr


# ---- loopback ---------------------------------------------------------------------------------

def test_on_loopback_without_credentials_the_admin_listener_answers(bsfd_factory):
    server = bsfd_factory()
    assert server.admin is not None
    resp = server.admin.get(ROUTE)
    assert resp.status_code == 404, resp.text  # no Rx gateway: no route, but no 401 either
    assert "www-authenticate" not in resp.headers


def test_the_admin_listener_serves_no_metrics_or_health(bsfd_factory):
    server = bsfd_factory()
    for path in ("/metrics", "/health/ready", "/health/live"):
        assert server.admin.get(path).status_code == 404, path
    assert server.ops.get("/metrics").status_code == 200


# ---- bearer token -----------------------------------------------------------------------------

def test_a_configured_token_is_required_even_on_loopback(bsfd_factory, token_file):
    server, port = start(bsfd_factory, listen="127.0.0.1", **{"ops.admin_token_file": token_file})
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as admin:
        resp = admin.get(ROUTE)
        assert resp.status_code == 401, resp.text
        assert resp.headers["www-authenticate"] == "Bearer"
        assert resp.headers["content-type"] == "application/problem+json"
        assert admin.get(ROUTE, headers={"authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_off_loopback_the_token_is_checked(bsfd_factory, token_file):
    server, port = start(bsfd_factory, **{"ops.admin_token_file": token_file})
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as admin:
        for header in (None, "Basic YWRtaW46YWRtaW4=", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}",
                       "Bearer x", f"bearer {TOKEN.upper()}"):
            resp = admin.post(ROUTE.replace("status", "triggerDisconnection"), json={},
                              headers={"authorization": header} if header else {})
            assert resp.status_code == 401, (header, resp.text)
            expected = "Bearer" if header is None or header.startswith("Basic") else \
                'Bearer error="invalid_token"'
            assert resp.headers["www-authenticate"] == expected, (header, resp.headers)
        resp = admin.get(ROUTE, headers={"authorization": f"Bearer {TOKEN}"})
        assert resp.status_code == 404, resp.text
        resp = admin.get(ROUTE, headers={"authorization": f"bearer   {TOKEN}"})
        assert resp.status_code == 404, resp.text


# ---- mutual TLS -------------------------------------------------------------------------------

def mtls_settings(pki):
    return {"ops.admin_tls.cert": pki.server[0], "ops.admin_tls.key": pki.server[1],
            "ops.admin_tls.ca": pki.ca}


def tls_client(pki, port, cert=None):
    context = ssl.create_default_context(cafile=pki.ca)
    if cert:
        context.load_cert_chain(*cert)
    return httpx.Client(base_url=f"https://127.0.0.1:{port}", verify=context, timeout=10)


def test_off_loopback_mtls_admits_a_client_certificate_of_the_ca(bsfd_factory, pki):
    server, port = start(bsfd_factory, **mtls_settings(pki))
    with tls_client(pki, port, pki.client) as admin:
        assert admin.get(ROUTE).status_code == 404


def test_mtls_refuses_a_missing_or_forged_client_certificate(bsfd_factory, pki):
    server, port = start(bsfd_factory, **mtls_settings(pki))
    for cert in (None, pki.forged):
        with tls_client(pki, port, cert) as admin:
            resp = admin.get(ROUTE)  # the CA is asked for, not required, in the handshake
            assert resp.status_code == 403, (cert, resp.text)
            assert "ops.admin_tls.ca" in resp.json()["detail"], resp.text
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as plain:
        with pytest.raises(httpx.TransportError):
            plain.get(ROUTE)  # cleartext on a TLS port gets nothing


def test_mtls_and_a_token_together_both_are_required(bsfd_factory, pki, token_file):
    server, port = start(bsfd_factory, **mtls_settings(pki),
                         **{"ops.admin_token_file": token_file})
    with tls_client(pki, port, pki.client) as admin:
        assert admin.get(ROUTE).status_code == 401
        assert admin.get(ROUTE, headers={"authorization": f"Bearer {TOKEN}"}).status_code == 404
    with tls_client(pki, port) as admin:
        resp = admin.get(ROUTE, headers={"authorization": f"Bearer {TOKEN}"})
        assert resp.status_code == 403, resp.text


def test_an_empty_admin_listen_disables_the_admin_listener(bsfd_factory):
    server = bsfd_factory({"ops.admin_listen": ""})
    assert server.admin is None
    with httpx.Client(base_url=f"http://127.0.0.1:{server.admin_port}", timeout=5) as admin:
        with pytest.raises(httpx.ConnectError):
            admin.get(ROUTE)
    assert server.ops.get("/health/ready").status_code == 200


def test_tls_without_client_certificates_serves_https_with_the_token(bsfd_factory, pki,
                                                                      token_file):
    server, port = start(bsfd_factory, **{"ops.admin_tls.cert": pki.server[0],
                                          "ops.admin_tls.key": pki.server[1],
                                          "ops.admin_token_file": token_file})
    with tls_client(pki, port) as admin:
        assert admin.get(ROUTE).status_code == 401
        assert admin.get(ROUTE, headers={"authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_tls_without_client_certificates_or_token_is_refused_off_loopback(tmp_path, pki):
    code, stderr = exits_with(tmp_path, {"ops.admin_listen": "0.0.0.0:9091",
                                         "ops.admin_tls.cert": pki.server[0],
                                         "ops.admin_tls.key": pki.server[1]})
    assert code == 2 and "ops.admin_listen" in stderr, stderr
