"""OAuth2 access tokens on Nbsf_Management (issue 13 §2; TS 33.501 §13.4.1, TS 29.510
AccessTokenClaims, RFC 6750; seed 3.31).

A per-run NRF key set (RSA 2048 and EC P-256, Python `cryptography`) signs tokens for every case;
bsfd runs with sbi.oauth2.required over h2c on loopback. Refused requests must store nothing.
"""

import base64
import hashlib
import hmac
import json
import time
import uuid

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from conftest import free_ports
from tls_support import Pki, client_context
from support import Ue, assert_binding, assert_no_content, assert_problem, binding, \
    discover, location_id, post_binding

# Fixed ids: they name parametrized tests, which pytest-xdist workers must collect alike.
BSF_ID = "5f0c9e1a-7b3d-4c2e-9a41-0d6e8b2f3c10"
NRF_ID = "a3e1b7c4-2d9f-4e68-8b05-6c1f9d2e7a34"
PCF_ID = "c8d2f4a6-1e3b-4f79-a0c5-9b7e3d1f5a62"
OTHER_ID = "e4b6a8c0-3f5d-4a1b-8c2e-7d9f1b3a5c78"  # an NF instance that is not this BSF


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()



class FromNow:
    """A time claim relative to when the token is made, not to when the module was collected
    (a whole suite runs for longer than these offsets)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def at(self, now):
        return now + self.seconds

    def __repr__(self):
        return f"now{self.seconds:+d}s"

class Nrf:
    """The NRF's signing keys of this run, and tokens made with them."""

    def __init__(self, directory):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.other_ec = ec.generate_private_key(ec.SECP256R1())  # not in the key file
        pem = b"".join(k.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)
                       for k in (self.rsa, self.ec))
        self.rsa_public_pem = pem.split(b"-----END PUBLIC KEY-----")[0] + \
            b"-----END PUBLIC KEY-----\n"
        self.keys = directory / "nrf-keys.pem"
        self.keys.write_bytes(pem)

    @staticmethod
    def claims(**changes):
        now = int(time.time())
        body = {"iss": NRF_ID, "sub": PCF_ID, "aud": "BSF", "scope": "nbsf-management",
                "exp": now + 600, "iat": now}
        body.update({k: v.at(now) if isinstance(v, FromNow) else v for k, v in changes.items()})
        return {k: v for k, v in body.items() if v is not None}

    def sign(self, alg, signing_input, key=None):
        if alg == "RS256":
            return (key or self.rsa).sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        if alg == "ES256":  # RFC 7518 §3.4: R || S, 32 bytes each
            r, s = decode_dss_signature((key or self.ec).sign(signing_input,
                                                              ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        if alg == "HS256":  # the key confusion attack: the public key as the HMAC secret
            return hmac.new(self.rsa_public_pem, signing_input, hashlib.sha256).digest()
        return b""

    def token(self, alg="RS256", key=None, header=None, **claims):
        head = {"alg": alg, "typ": "JWT"}
        head.update(header or {})
        signing_input = (b64url(json.dumps(head).encode()) + "." +
                         b64url(json.dumps(self.claims(**claims)).encode())).encode()
        return signing_input.decode() + "." + b64url(self.sign(alg, signing_input, key))


@pytest.fixture(scope="module")
def nrf(tmp_path_factory):
    return Nrf(tmp_path_factory.mktemp("nrf"))


@pytest.fixture(scope="module", params=["h2c", "tls"])
def server(request, module_bsfd_factory, nrf, tmp_path_factory):
    """Every test runs on h2c and again on h2 over TLS only (issue 13 §2: on TLS and on
    cleartext)."""
    settings = {"sbi.oauth2.required": "true", "sbi.oauth2.keys": nrf.keys,
                "nf.instance_id": BSF_ID}
    if request.param == "h2c":
        return module_bsfd_factory(settings)
    pki = Pki(tmp_path_factory.mktemp("pki"))
    cert, key = pki.issue("server", "127.0.0.1")
    port, = free_ports(1)
    settings.update({"sbi.listen": "", "sbi.tls.listen": f"127.0.0.1:{port}",
                     "sbi.tls.cert": cert, "sbi.tls.key": key})
    return module_bsfd_factory(settings, tls_client=client_context(pki))


def bearer(token):
    return {"authorization": f"Bearer {token}"}


def refused_registration(server, headers, status, challenge):
    """A registration refused with `status` and WWW-Authenticate `challenge`; nothing stored."""
    before = server.count()
    ue = Ue()
    resp = post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4, supi=ue.supi), headers)
    body = assert_problem(resp, status, None)
    assert resp.headers.get("www-authenticate") == challenge, dict(resp.headers)
    assert "cause" not in body, body
    assert body["instance"] == "/nbsf-management/v1/pcfBindings", body
    assert server.count() == before
    found = server.client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4},
                              headers=bearer(server.nrf_token))
    assert_no_content(found)
    return body


@pytest.fixture(scope="module", autouse=True)
def _valid_token(server, nrf):
    server.nrf_token = nrf.token()


INVALID = 'Bearer error="invalid_token"'


def test_no_token_is_401_without_an_error_attribute(server):
    refused_registration(server, None, 401, "Bearer")


def test_another_scheme_is_treated_as_no_token(server):
    refused_registration(server, {"authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"}, 401,
                         "Bearer")


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_valid_token_registers_and_every_operation_needs_one(server, nrf, alg):
    token = nrf.token(alg)
    client = server.reconnect()
    ue = Ue()
    resp = post_binding(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi), bearer(token))
    assert_binding(resp, 201)
    binding_id = location_id(resp)
    # discovery, update and deregistration are Nbsf_Management requests too
    assert_problem(discover(client, ipv4Addr=ue.ipv4), 401, None)
    resp = client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4}, headers=bearer(token))
    assert_binding(resp, 200)
    resp = client.patch(f"/pcfBindings/{binding_id}", content=b'{"dnn": "ims"}',
                        headers={"content-type": "application/merge-patch+json"})
    assert_problem(resp, 401, None)
    resp = client.delete(f"/pcfBindings/{binding_id}")
    assert_problem(resp, 401, None)
    resp = client.delete(f"/pcfBindings/{binding_id}", headers=bearer(token))
    assert resp.status_code == 204, resp.text


def test_an_unknown_resource_needs_a_token_too(server):
    resp = server.reconnect().get("/nothing-here")
    assert_problem(resp, 401, None)


@pytest.mark.parametrize("case, claims", [
    ("expired", {"exp": FromNow(-120)}),
    ("nbf in the future", {"nbf": FromNow(300)}),
    ("iat in the future", {"iat": FromNow(300)}),
    ("wrong aud", {"aud": "SMF"}),
    ("aud array without this BSF", {"aud": [OTHER_ID, "PCF"]}),
    ("aud missing", {"aud": None}),
    ("exp missing", {"exp": None}),
    ("exp not an integer", {"exp": "tomorrow"}),
    ("iss missing", {"iss": None}),
    ("scope missing", {"scope": None}),
])
def test_bad_claims_are_invalid_token(server, nrf, case, claims):
    for alg in ("RS256", "ES256"):
        refused_registration(server, bearer(nrf.token(alg, **claims)), 401, INVALID)


@pytest.mark.parametrize("aud", [BSF_ID, [OTHER_ID, BSF_ID], ["BSF"], BSF_ID.upper()])
def test_aud_names_this_instance_or_the_nf_type(server, nrf, aud):
    ue = Ue()
    resp = post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4),
                        bearer(nrf.token("ES256", aud=aud)))
    assert_binding(resp, 201)


@pytest.mark.parametrize("scope", ["npcf-smpolicycontrol", "nbsf-managementx",
                                   "xnbsf-management", "nbsf-management-extra nudm-sdm",
                                   "nbsf"])
def test_a_scope_without_the_service_word_is_insufficient_scope(server, nrf, scope):
    body = refused_registration(server, bearer(nrf.token(scope=scope)), 403,
                                'Bearer error="insufficient_scope", scope="nbsf-management"')
    assert "scope" in body["detail"], body


def test_the_service_word_among_others_is_enough(server, nrf):
    ue = Ue()
    resp = post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4),
                        bearer(nrf.token(scope="nudm-sdm nbsf-management npcf-policyauthorization")))
    assert_binding(resp, 201)


def test_alg_none_is_refused(server, nrf):
    refused_registration(server, bearer(nrf.token("none")), 401, INVALID)
    head = b64url(b'{"alg":"none"}')
    body = b64url(json.dumps(nrf.claims()).encode())
    refused_registration(server, bearer(f"{head}.{body}."), 401, INVALID)


def test_hs256_with_the_public_key_as_secret_is_refused(server, nrf):
    refused_registration(server, bearer(nrf.token("HS256")), 401, INVALID)


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_a_bad_signature_is_refused(server, nrf, alg):
    token = nrf.token(alg)
    head, body, sig = token.split(".")
    flipped = bytearray(base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4)))
    flipped[len(flipped) // 2] ^= 0x01
    refused_registration(server, bearer(f"{head}.{body}.{b64url(bytes(flipped))}"), 401, INVALID)
    # a token signed by a key the NRF never published
    refused_registration(server, bearer(nrf.token("ES256", key=nrf.other_ec)), 401, INVALID)
    # claims changed after signing
    forged = b64url(json.dumps(nrf.claims(sub=str(uuid.uuid4()))).encode())
    refused_registration(server, bearer(f"{head}.{forged}.{sig}"), 401, INVALID)


def test_an_es256_signature_in_der_form_is_refused(server, nrf):
    """RFC 7518 §3.4 signatures are R||S; the DER form OpenSSL produces is not a JWS one."""
    head = b64url(json.dumps({"alg": "ES256"}).encode())
    body = b64url(json.dumps(nrf.claims()).encode())
    der = nrf.ec.sign(f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    refused_registration(server, bearer(f"{head}.{body}.{b64url(der)}"), 401, INVALID)


@pytest.mark.parametrize("token", ["", "abc", "a.b", "a.b.c.d", "!!!.???.***",
                                   b64url(b"[1]") + "." + b64url(b"{}") + ".AAAA",
                                   "x" * 9000])
def test_malformed_tokens_are_invalid_token(server, token):
    refused_registration(server, {"authorization": f"Bearer {token}"}, 401, INVALID)


def test_duplicate_claims_are_refused(server, nrf):
    head = b64url(json.dumps({"alg": "RS256"}).encode())
    text = json.dumps(nrf.claims(aud="SMF"))[:-1] + ', "aud": "BSF"}'
    signing_input = f"{head}.{b64url(text.encode())}".encode()
    token = signing_input.decode() + "." + b64url(nrf.sign("RS256", signing_input))
    refused_registration(server, bearer(token), 401, INVALID)


def test_metrics_and_health_stay_open(server):
    assert server.ops.get("/metrics").status_code == 200
    assert server.ops.get("/health/ready").status_code == 200
    assert server.ops.get("/health/live").status_code == 200


# ---- sbi.oauth2.validate_signature = false (seed 3.31) --------------------------------------

@pytest.fixture(scope="module")
def unsigned_server(module_bsfd_factory):
    server = module_bsfd_factory({"sbi.oauth2.required": "true",
                                  "sbi.oauth2.validate_signature": "false",
                                  "nf.instance_id": BSF_ID})
    return server


def garbage_signature(token):
    head, body, _ = token.split(".")
    return f"{head}.{body}.{b64url(b'not a signature at all')}"


def test_without_signature_validation_good_claims_are_accepted(unsigned_server, nrf):
    ue = Ue()
    resp = post_binding(unsigned_server.reconnect(), binding(ipv4Addr=ue.ipv4),
                        bearer(garbage_signature(nrf.token())))
    assert_binding(resp, 201)


@pytest.mark.parametrize("claims, status, challenge", [
    ({"exp": FromNow(-120)}, 401, INVALID),
    ({"aud": "SMF"}, 401, INVALID),
    ({"scope": "npcf-smpolicycontrol"}, 403,
     'Bearer error="insufficient_scope", scope="nbsf-management"'),
])
def test_without_signature_validation_every_claim_is_still_checked(unsigned_server, nrf, claims,
                                                                    status, challenge):
    unsigned_server.nrf_token = garbage_signature(nrf.token())
    refused_registration(unsigned_server, bearer(garbage_signature(nrf.token(**claims))),
                         status, challenge)


def test_without_signature_validation_alg_none_is_still_refused(unsigned_server, nrf):
    unsigned_server.nrf_token = garbage_signature(nrf.token())
    refused_registration(unsigned_server, bearer(nrf.token("none")), 401, INVALID)
    refused_registration(unsigned_server, bearer(nrf.token("HS256")), 401, INVALID)
    refused_registration(unsigned_server, {}, 401, "Bearer")


# ---- producer checks and start-up ---------------------------------------------------------

def test_producer_nf_set_and_plmn_are_checked_when_configured(bsfd_factory, nrf):
    server = bsfd_factory({"sbi.oauth2.required": "true", "sbi.oauth2.keys": nrf.keys,
                           "sbi.oauth2.producer_nf_set_id": "set1.bsfset.5gc.mnc001.mcc001",
                           "sbi.oauth2.producer_plmn_id": "001-01"})
    server.nrf_token = nrf.token()
    refused_registration(server, bearer(nrf.token(producerNfSetId="set2.bsfset.5gc.mnc001.mcc001")),
                         401, INVALID)
    refused_registration(server, bearer(nrf.token(producerPlmnId={"mcc": "001", "mnc": "02"})),
                         401, INVALID)
    ue = Ue()
    resp = post_binding(server.reconnect(), binding(ipv4Addr=ue.ipv4), bearer(nrf.token(
        producerNfSetId="set1.bsfset.5gc.mnc001.mcc001", producerPlmnId={"mcc": "001",
                                                                         "mnc": "01"})))
    assert_binding(resp, 201)


@pytest.mark.parametrize("settings, key", [
    ({"sbi.oauth2.required": "true"}, "sbi.oauth2.keys"),
    ({"sbi.oauth2.required": "true", "sbi.oauth2.keys": "/nonexistent/keys.pem"},
     "sbi.oauth2.keys"),
    ({"sbi.oauth2.required": "true", "sbi.oauth2.validate_signature": "false",
      "sbi.oauth2.producer_plmn_id": "1-1"}, "sbi.oauth2.producer_plmn_id"),
])
def test_bad_oauth2_configuration_stops_bsfd_with_exit_2(tmp_path, settings, key):
    from conftest import refused_at_start
    refused_at_start(tmp_path, settings, key, timeout=20)


def test_a_key_file_without_keys_stops_bsfd(tmp_path):
    from conftest import refused_at_start
    empty = tmp_path / "empty.pem"
    empty.write_text("nothing here\n")
    refused_at_start(tmp_path, {"sbi.oauth2.required": "true", "sbi.oauth2.keys": empty},
                     "sbi.oauth2.keys", timeout=20)
