"""Who may call the SBI (issue 13 §4), over HTTP/2 on loopback: the SCP named in
x-forwarded-client-cert (seed §3.24, sbi.xfcc.*) and the consumer's NF type in User-Agent
(seed §3.37, sbi.user_agent.*). A refused request answers the configured status and cause
and stores nothing."""

import subprocess

import httpx
import pytest

from conftest import BSFD
from support import Ue, assert_problem, binding, describe, h2_request

API = "/nbsf-management/v1"
SCP = "scp1.example.com"
PCF_UA = "PCF-54804518-4191-46b3-955c-ac631f953ed8 pcf1.example.org"
SEED_HEADER = ("By=http://router1.blr.com;Hash=468ed33b;Subject=\"/C=US/CN=nf1.com\";"
               "URI=http://testenv1.blr.com;DNS=nf8.com;DNS=nf1.com, By=http://router2.blr.com;"
               "DNS=nf10.com;DNS=nf9.com, By=http://routexr1.blr.com;DNS=nf4.com;DNS=" + SCP)


@pytest.fixture(scope="module")
def xfcc(module_bsfd_factory):
    return module_bsfd_factory({"sbi.xfcc.enabled": "true",
                                "sbi.xfcc.peers": f"{SCP},scp2.example.com"})


def register(server, headers, ue=None):
    ue = ue or Ue()
    resp = server.client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4), headers=headers)
    return resp, ue


def assert_not_stored(server, ue):
    resp = server.client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4},
                             headers={"x-forwarded-client-cert": f"DNS={SCP}"})
    assert resp.status_code == 204, describe(resp)


# --- XFCC ----------------------------------------------------------------------------------

def test_request_through_a_configured_scp_is_served(xfcc):
    resp, _ = register(xfcc, {"x-forwarded-client-cert": f"By=http://{SCP};DNS={SCP}"})
    assert resp.status_code == 201, describe(resp)
    # the seed's three-element header: the SCP in the right-most element
    resp, _ = register(xfcc, {"x-forwarded-client-cert": SEED_HEADER})
    assert resp.status_code == 201, describe(resp)


@pytest.mark.parametrize("value, exception", [
    ("By=http://x;DNS=rogue.example.com", "XFCC_HEADER_VALIDATION_FAILED"),
    (None, "XFCC_HEADER_NOT_PRESENT_OR_EMPTY"),
    ("", "XFCC_HEADER_NOT_PRESENT_OR_EMPTY"),
    ("DNS=\"scp1.example.com", "XFCC_HEADER_INVALID"),
    # the SCP only in an element left of the right-most (match_certs 1)
    (f"DNS={SCP},DNS=nf4.com", "XFCC_HEADER_VALIDATION_FAILED"),
    (f"URI={SCP}", "XFCC_HEADER_VALIDATION_FAILED"),
], ids=["rogue", "absent", "empty", "invalid", "not-right-most", "other-field"])
def test_refused_without_a_configured_scp(xfcc, value, exception):
    count = xfcc.count()
    headers = {} if value is None else {"x-forwarded-client-cert": value}
    resp, ue = register(xfcc, headers)
    problem = assert_problem(resp, 400, "UNSPECIFIED_MSG_FAILURE")
    assert exception in problem["detail"], problem
    assert problem["instance"] == API + "/pcfBindings", problem
    assert xfcc.count() == count
    assert_not_stored(xfcc, ue)


def test_discovery_and_delete_are_checked_too(xfcc):
    resp = xfcc.client.get("/pcfBindings", params={"ipv4Addr": "192.0.2.1"})
    assert_problem(resp, 400, "UNSPECIFIED_MSG_FAILURE")
    resp = xfcc.client.delete("/pcfBindings/" + "0" * 32,
                              headers={"x-forwarded-client-cert": "DNS=rogue"})
    assert_problem(resp, 400, "UNSPECIFIED_MSG_FAILURE")


def test_two_header_fields_are_one_list(xfcc):
    """The right-most element is in the last field."""
    raw = h2_request(xfcc.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1",
                     [("x-forwarded-client-cert", "DNS=rogue"),
                      ("x-forwarded-client-cert", f"DNS={SCP}")])
    assert raw.status == 204, raw
    raw = h2_request(xfcc.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1",
                     [("x-forwarded-client-cert", f"DNS={SCP}"),
                      ("x-forwarded-client-cert", "DNS=rogue")])
    assert raw.status == 400, raw


def test_match_certs_and_the_configured_error(bsfd_factory):
    server = bsfd_factory({"sbi.xfcc.enabled": "true", "sbi.xfcc.peers": SCP,
                           "sbi.xfcc.match_certs": "3", "sbi.xfcc.error_status": "403",
                           "sbi.xfcc.error_cause": "SCP_NOT_ALLOWED"})
    resp, _ = register(server, {"x-forwarded-client-cert": f"DNS={SCP}"})
    problem = assert_problem(resp, 403, "SCP_NOT_ALLOWED")
    assert "XFCC_MATCHCERTCOUNT_GREATER_THAN_CERTS_IN_HEADER" in problem["detail"], problem
    # three elements, the SCP in the left-most: within the three checked
    resp, _ = register(server, {"x-forwarded-client-cert": f"DNS={SCP},DNS=a,DNS=b"})
    assert resp.status_code == 201, describe(resp)


def test_xfcc_off_by_default(bsfd, client):
    resp = client.post("/pcfBindings", json=binding(ipv4Addr=Ue().ipv4),
                       headers={"x-forwarded-client-cert": "DNS=rogue"})
    assert resp.status_code == 201, describe(resp)


@pytest.mark.parametrize("settings, key", [
    ({"sbi.xfcc.enabled": "true"}, "sbi.xfcc.peers"),
    ({"sbi.xfcc.match_field": "CN"}, "sbi.xfcc.match_field"),
    ({"sbi.xfcc.error_cause": "bad cause"}, "sbi.xfcc.error_cause"),
    ({"sbi.xfcc.error_status": "200"}, "sbi.xfcc.error_status"),
    ({"sbi.user_agent.enabled": "true", "sbi.user_agent.consumer_nf_types": ""},
     "sbi.user_agent.consumer_nf_types"),
    ({"sbi.user_agent.validation": "lenient"}, "sbi.user_agent.validation"),
])
def test_bad_settings_stop_bsfd_naming_the_key(tmp_path, settings, key):
    command = [str(BSFD), "--set", f"store.path={tmp_path}", "--set", "sbi.listen=127.0.0.1:0",
               "--set", "ops.listen=", "--set", "ops.admin_listen="]
    for k, v in settings.items():
        command += ["--set", f"{k}={v}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert key in done.stderr, done.stderr[-2000:]


# --- User-Agent ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def strict_ua(module_bsfd_factory):
    return module_bsfd_factory({"sbi.user_agent.enabled": "true",
                                "sbi.user_agent.validation": "strict",
                                "sbi.user_agent.consumer_nf_types": "PCF,NEF,AF"})


def test_allowed_consumer_is_served(strict_ua):
    resp, _ = register(strict_ua, {"user-agent": PCF_UA})
    assert resp.status_code == 201, describe(resp)
    resp = strict_ua.client.get("/pcfBindings", params={"ipv4Addr": "192.0.2.1"},
                                headers={"user-agent": "AF-1"})
    assert resp.status_code == 204, describe(resp)


@pytest.mark.parametrize("value", ["SMF-54804518-4191-46b3-955c-ac631f953ed8", "PCF",
                                   "python-httpx/0.26", "PCF-1, NEF-2"])
def test_other_consumers_are_refused(strict_ua, value):
    count = strict_ua.count()
    resp, _ = register(strict_ua, {"user-agent": value})
    problem = assert_problem(resp, 400, "INVALID_MSG_FORMAT")
    assert "User-Agent" in problem["detail"] or "NF type" in problem["detail"], problem
    assert strict_ua.count() == count


def test_two_user_agent_fields_are_refused(strict_ua):
    raw = h2_request(strict_ua.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1",
                     [("user-agent", "PCF-1"), ("user-agent", "PCF-2")])
    assert raw.status == 400, raw


def test_strict_refuses_and_relaxed_serves_a_request_without_user_agent(strict_ua, bsfd_factory):
    raw = h2_request(strict_ua.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1", [])
    assert raw.status == 400, raw
    relaxed = bsfd_factory({"sbi.user_agent.enabled": "true",
                            "sbi.user_agent.error_status": "403",
                            "sbi.user_agent.error_cause": "CONSUMER_NOT_ALLOWED"})
    raw = h2_request(relaxed.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1", [])
    assert raw.status == 204, raw
    raw = h2_request(relaxed.sbi_port, "GET", API + "/pcfBindings?ipv4Addr=192.0.2.1",
                     [("user-agent", "UDR-1")])
    assert raw.status == 403, raw
    assert b'"cause":"CONSUMER_NOT_ALLOWED"' in raw.body, raw
