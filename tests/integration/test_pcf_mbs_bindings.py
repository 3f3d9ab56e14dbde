"""/pcf-mbs-bindings: register (201, absolute Location, stored body; 403 MbsExtProblemDetails
when the MBS session is already bound), discovery by mbs-session-id (a JSON query value; 200
with an array, [] on a miss), merge-patch update, deregister, validation with ProblemDetails
and nothing stored, restart, and bsfctl."""
import itertools
import json
import re

import pytest

import openapi
from support import (MERGE_PATCH, assert_json, assert_json_array, assert_no_content,
                     assert_problem, assert_rebuild_matches, created_id, new_pcf_id)

MBS_LOCATION = re.compile(r"https?://[^/?#]+/nbsf-management/v1/pcf-mbs-bindings/([0-9a-f]{32})")
_numbers = itertools.count(1)


def tmgi():
    n = next(_numbers)
    return {"tmgi": {"mbsServiceId": f"{n:06X}", "plmnId": {"mcc": "001", "mnc": "01"}}}


def ssm(v6=False):
    n = next(_numbers)
    if v6:
        return {"ssm": {"sourceIpAddr": {"ipv6Addr": f"2001:db8:5::{n:x}"},
                        "destIpAddr": {"ipv6Prefix": "ff3e::/96"}}}
    return {"ssm": {"sourceIpAddr": {"ipv4Addr": f"198.51.{n >> 8 & 255}.{n & 255}"},
                    "destIpAddr": {"ipv4Addr": "232.1.1.1"}}}


def mbs_binding(session, **members):
    body = {"mbsSessionId": session, "pcfFqdn": "pcf-mbs1.example.com"}
    body.update(members)
    return {k: v for k, v in body.items() if v is not None}


def post(client, body, content_type="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/pcf-mbs-bindings", content=data, headers={"content-type": content_type})


def assert_mbs(resp, status):
    return assert_json(resp, status, "PcfMbsBinding")


def register(client, body):
    openapi.validate(body, "PcfMbsBinding")
    resp = post(client, body)
    stored = assert_mbs(resp, 201)
    return created_id(resp, MBS_LOCATION, "MBS binding"), stored


def discover(client, session, supp_feat=None):
    openapi.validate(session, "MbsSessionId")
    params = {"mbs-session-id": json.dumps(session, separators=(",", ":"))}
    if supp_feat is not None:
        params["supp-feat"] = supp_feat
    return client.get("/pcf-mbs-bindings", params=params)


def found(client, session, **kw):
    return assert_json_array(discover(client, session, **kw), "PcfMbsBinding")


def patch(client, binding_id, changes, content_type=MERGE_PATCH):
    return client.patch(f"/pcf-mbs-bindings/{binding_id}", content=json.dumps(changes).encode(),
                        headers={"content-type": content_type})


def test_register_discover_update_deregister(bsfd, client):
    session = {**tmgi(), **ssm(), "nid": "0a1B2c3D4e5"}
    body = mbs_binding(session, pcfIpEndPoints=[{"ipv4Address": "192.0.2.20", "port": 80}],
                       pcfId=new_pcf_id(), pcfSetId="set1", bindLevel="NF_SET",
                       recoveryTime="2024-05-01T10:20:30Z", suppFeat="0")
    binding_id, stored = register(client, body)
    canonical = {**body, "mbsSessionId": {**session, "nid": "0A1B2C3D4E5"}}
    assert stored == canonical
    assert found(client, session) == [stored]
    assert found(client, {"tmgi": session["tmgi"]}) == [stored]
    assert found(client, {"ssm": session["ssm"]}) == [stored]
    assert found(client, {"tmgi": session["tmgi"], "nid": "00000000000"}) == []
    assert found(client, tmgi()) == []
    changes = {"pcfFqdn": "pcf-mbs2.example.com", "pcfId": new_pcf_id()}
    openapi.validate(changes, "PcfMbsBindingPatch")
    updated = assert_mbs(patch(client, binding_id, changes), 200)
    assert updated == {**stored, **changes}
    assert bsfd.active_sessions()["mbsBindingCount"] >= 1
    location = f"{bsfd.api_root}/nbsf-management/v1/pcf-mbs-bindings/{binding_id}"
    assert_no_content(client.delete(location))
    assert found(client, session) == []
    assert_problem(client.delete(location), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(patch(client, binding_id, changes), 404, "RESOURCE_CONTEXT_NOT_FOUND")


def test_ipv6_ssm_canonical(client):
    """A schema-valid but uncompressed IPv6 source is stored in RFC 5952 form; either form
    finds it."""
    session = ssm(v6=True)
    short = session["ssm"]["sourceIpAddr"]["ipv6Addr"]
    n = short.rsplit(":", 1)[1]
    session["ssm"]["sourceIpAddr"]["ipv6Addr"] = f"2001:db8:5:0:0:0:0:{n}"
    _, stored = register(client, mbs_binding(session))
    assert stored["mbsSessionId"]["ssm"]["sourceIpAddr"]["ipv6Addr"] == short
    assert found(client, session) == [stored]
    assert found(client, stored["mbsSessionId"]) == [stored]


def test_an_existing_session_answers_403_with_the_bound_pcf(client):
    session = {**tmgi(), **ssm()}
    binding_id, stored = register(client, mbs_binding(
        session, pcfIpEndPoints=[{"ipv4Address": "192.0.2.21"}]))
    for other in (session, {"tmgi": session["tmgi"]}, {"ssm": session["ssm"]}):
        resp = post(client, mbs_binding(other, pcfFqdn="pcf-other.example.com"))
        body = assert_problem(resp, 403, "EXISTING_BINDING_INFO_FOUND",
                              schema="MbsExtProblemDetails")
        assert body["pcfFqdn"] == "pcf-mbs1.example.com"
        assert body["pcfIpEndPoints"] == [{"ipv4Address": "192.0.2.21"}]
    assert found(client, session) == [stored]
    assert_no_content(client.delete(f"/pcf-mbs-bindings/{binding_id}"))
    register(client, mbs_binding(session, pcfFqdn="pcf-other.example.com"))


@pytest.mark.parametrize("body,cause,param", [
    ({"pcfFqdn": "a.example.com"}, "MANDATORY_IE_MISSING", "/mbsSessionId"),
    ({"mbsSessionId": {}, "pcfFqdn": "a.example.com"}, "MANDATORY_IE_INCORRECT", "/mbsSessionId"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "12345", "plmnId": {"mcc": "001", "mnc": "01"}}},
      "pcfFqdn": "a.example.com"}, "MANDATORY_IE_INCORRECT", "/mbsSessionId/tmgi/mbsServiceId"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "1", "mnc": "01"}}},
      "pcfFqdn": "a.example.com"}, "MANDATORY_IE_INCORRECT", "/mbsSessionId/tmgi/plmnId/mcc"),
    ({"mbsSessionId": {"ssm": {"sourceIpAddr": {"ipv4Addr": "1.2.3.4", "ipv6Addr": "::1"},
                               "destIpAddr": {"ipv4Addr": "232.1.1.1"}}},
      "pcfFqdn": "a.example.com"}, "MANDATORY_IE_INCORRECT", "/mbsSessionId/ssm/sourceIpAddr"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "001", "mnc": "01"}},
                       "nid": "xyz"},
      "pcfFqdn": "a.example.com"}, "MANDATORY_IE_INCORRECT", "/mbsSessionId/nid"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "001", "mnc": "01"}}}},
     "MANDATORY_IE_MISSING", "/pcfFqdn"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "001", "mnc": "01"}}},
      "pcfFqdn": "a.example.com", "pcfIpEndPoints": []}, "OPTIONAL_IE_INCORRECT", "/pcfIpEndPoints"),
    ({"mbsSessionId": {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "001", "mnc": "01"}}},
      "pcfFqdn": "a.example.com", "pcfId": "nope"}, "OPTIONAL_IE_INCORRECT", "/pcfId"),
])
def test_bad_body_stores_nothing(client, body, cause, param):
    assert openapi.errors(body, "PcfMbsBinding"), "the body should break the schema"
    assert_problem(post(client, body), 400, cause, param=param)
    probe = {"tmgi": {"mbsServiceId": "123456", "plmnId": {"mcc": "001", "mnc": "01"}}}
    assert found(client, probe) == []


def test_media_types_and_methods(client):
    assert_problem(post(client, b"{oops"), 400, "INVALID_MSG_FORMAT")
    assert_problem(post(client, mbs_binding(tmgi()), "text/plain"), 415, "INVALID_MSG_FORMAT")
    resp = client.put("/pcf-mbs-bindings", content=b"{}", headers={"content-type": "application/json"})
    assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    binding_id, stored = register(client, mbs_binding(tmgi()))
    assert_problem(patch(client, binding_id, {"pcfFqdn": "b.example.com"}, "application/json"),
                   415, "INVALID_MSG_FORMAT")
    assert_problem(patch(client, binding_id, {"mbsSessionId": tmgi()}), 403,
                   "MODIFICATION_NOT_ALLOWED", param="/mbsSessionId")
    assert_problem(patch(client, binding_id, {"pcfFqdn": None}), 400, "OPTIONAL_IE_INCORRECT",
                   param="/pcfFqdn")
    assert found(client, stored["mbsSessionId"]) == [stored]


def test_discovery_query_rules(client):
    assert_problem(client.get("/pcf-mbs-bindings"), 400, "MANDATORY_QUERY_PARAM_MISSING",
                   param="query mbs-session-id")
    assert_problem(client.get("/pcf-mbs-bindings", params={"mbs-session-id": "{not json"}), 400,
                   "MANDATORY_QUERY_PARAM_INCORRECT", param="query mbs-session-id")
    assert_problem(client.get("/pcf-mbs-bindings", params={"mbs-session-id": "{}"}), 400,
                   "MANDATORY_QUERY_PARAM_INCORRECT", param="query mbs-session-id")
    assert_problem(discover(client, tmgi(), supp_feat="zz"), 400, "OPTIONAL_QUERY_PARAM_INCORRECT",
                   param="query supp-feat")
    resp = client.get("/pcf-mbs-bindings", params={"mbs-session-id": json.dumps(tmgi()),
                                                     "dnn": "x"})
    assert_problem(resp, 400, "INVALID_QUERY_PARAM", param="query dnn")
    assert found(client, tmgi(), supp_feat='"1"') == []


def test_restart_digest_and_bsfctl(bsfd_factory, tmp_path):
    server = bsfd_factory()
    client = server.reconnect()
    session = tmgi()
    binding_id, stored = register(client, mbs_binding(session))
    gone_id, _ = register(client, mbs_binding(ssm()))
    assert_no_content(client.delete(f"/pcf-mbs-bindings/{gone_id}"))
    server.restart()
    client = server.reconnect()
    assert found(client, session) == [stored]
    assert server.active_sessions()["mbsBindingCount"] == 1
    events = server.history(binding=binding_id)
    assert [e["type"] for e in events] == ["MbsBindingRegistered"], events
    assert events[0]["mbsBinding"] == stored
    stats = json.loads(server.bsfctl("stats", "--json").stdout)
    assert stats["liveMbsBindings"] == 1
    assert_rebuild_matches(server, tmp_path / "rebuilt")
