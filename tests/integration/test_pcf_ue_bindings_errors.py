"""/pcf-ue-bindings: bad input is answered with ProblemDetails (the TS 29.500 / 29.521
causes) and nothing is stored."""
import json

import pytest

import openapi
from support import MERGE_PATCH, Ue, assert_problem
from ue_support import delete_ue, discover_ue, found_ue, patch_ue, post_ue, register_ue, ue_binding


@pytest.mark.parametrize("member,value,status,cause", [
    ("supi", 42, 400, "MANDATORY_IE_INCORRECT"),
    ("gpsi", ["msisdn-46712345678"], 400, "OPTIONAL_IE_INCORRECT"),
    ("pcfForUeFqdn", "-bad-", 400, "OPTIONAL_IE_INCORRECT"),
    ("pcfForUeIpEndPoints", [], 400, "OPTIONAL_IE_INCORRECT"),
    ("pcfForUeIpEndPoints", [{"ipv4Address": "300.1.1.1"}], 400, "OPTIONAL_IE_INCORRECT"),
    ("pcfId", "not-a-uuid", 400, "OPTIONAL_IE_INCORRECT"),
    ("recoveryTime", "yesterday", 400, "OPTIONAL_IE_INCORRECT"),
    ("suppFeat", "xyz", 400, "OPTIONAL_IE_INCORRECT"),
])
def test_bad_member(client, member, value, status, cause):
    ue = Ue()
    body = ue_binding(ue, **{member: value})
    assert openapi.errors(body, "PcfForUeBinding"), "the body should break the schema"
    assert_problem(post_ue(client, body), status, cause, param=f"/{member}")
    assert found_ue(client, supi=ue.supi) == []


@pytest.mark.parametrize("member,value,cause", [
    ("supi", "imsi-12", "MANDATORY_IE_INCORRECT"),
    ("supi", "", "MANDATORY_IE_INCORRECT"),
    ("gpsi", "msisdn-1", "OPTIONAL_IE_INCORRECT"),
])
def test_identity_forms_of_ts_23003(client, member, value, cause):
    """The schema's Supi/Gpsi patterns end with a catch-all: the BSF holds imsi- and msisdn-
    identities to TS 23.003 (5..15 digits), as for pcfBindings."""
    ue = Ue()
    assert_problem(post_ue(client, ue_binding(ue, **{member: value})), 400, cause,
                   param=f"/{member}")
    assert found_ue(client, gpsi=ue.gpsi) == []


def test_missing_supi(client):
    ue = Ue()
    body = ue_binding(ue, supi=None)
    assert_problem(post_ue(client, body), 400, "MANDATORY_IE_MISSING", param="/supi")
    assert found_ue(client, gpsi=ue.gpsi) == []


def test_missing_pcf_address(client):
    ue = Ue()
    body = ue_binding(ue, pcfForUeFqdn=None)
    assert openapi.errors(body, "PcfForUeBinding")
    assert_problem(post_ue(client, body), 400, "MANDATORY_IE_MISSING", param="/pcfForUeFqdn")
    assert found_ue(client, supi=ue.supi) == []


def test_not_json_and_wrong_media_type(client):
    ue = Ue()
    assert_problem(post_ue(client, b"{not json"), 400, "INVALID_MSG_FORMAT")
    assert_problem(post_ue(client, b"[]"), 400, "INVALID_MSG_FORMAT")
    assert_problem(post_ue(client, ue_binding(ue), content_type="text/plain"), 415,
                   "INVALID_MSG_FORMAT")
    assert found_ue(client, supi=ue.supi) == []


def test_discovery_query_rules(client):
    assert_problem(discover_ue(client), 400, "MANDATORY_QUERY_PARAM_MISSING", param="query supi")
    assert_problem(discover_ue(client, **{"supp-feat": "1"}), 400,
                   "MANDATORY_QUERY_PARAM_MISSING")
    assert_problem(discover_ue(client, supi="imsi-1"), 400, "MANDATORY_QUERY_PARAM_INCORRECT",
                   param="query supi")
    assert_problem(discover_ue(client, gpsi="msisdn-1"), 400, "MANDATORY_QUERY_PARAM_INCORRECT",
                   param="query gpsi")
    assert_problem(discover_ue(client, supi=Ue().supi, dnn="internet"), 400,
                   "INVALID_QUERY_PARAM", param="query dnn")
    assert_problem(discover_ue(client, supi=Ue().supi, **{"supp-feat": "zz"}), 400,
                   "OPTIONAL_QUERY_PARAM_INCORRECT", param="query supp-feat")


@pytest.mark.parametrize("changes,status,cause,param", [
    ({"supi": "imsi-001010000000001"}, 403, "MODIFICATION_NOT_ALLOWED", "/supi"),
    ({"gpsi": "msisdn-46700000001"}, 403, "MODIFICATION_NOT_ALLOWED", "/gpsi"),
    ({"pcfForUeFqdn": None}, 400, "OPTIONAL_IE_INCORRECT", "/pcfForUeFqdn"),
    ({"pcfId": "nope"}, 400, "OPTIONAL_IE_INCORRECT", "/pcfId"),
    ({"pcfForUeIpEndPoints": []}, 400, "OPTIONAL_IE_INCORRECT", "/pcfForUeIpEndPoints"),
])
def test_bad_patch_changes_nothing(client, changes, status, cause, param):
    ue = Ue()
    binding_id, stored = register_ue(client, ue_binding(ue))
    resp = client.patch(f"/pcf-ue-bindings/{binding_id}", content=json.dumps(changes).encode(),
                        headers={"content-type": MERGE_PATCH})
    assert_problem(resp, status, cause, param=param)
    assert found_ue(client, supi=ue.supi) == [stored]


def test_patch_needs_merge_patch_media_type(client):
    ue = Ue()
    binding_id, stored = register_ue(client, ue_binding(ue))
    resp = patch_ue(client, binding_id, {"pcfForUeFqdn": "a.example.com"},
                    content_type="application/json")
    assert_problem(resp, 415, "INVALID_MSG_FORMAT")
    assert found_ue(client, supi=ue.supi) == [stored]
