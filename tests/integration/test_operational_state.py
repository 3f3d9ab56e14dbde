"""Controlled shutdown (issue 15 §1, seed §3.39): PUT/GET of
{admin}/oc-bsf-configuration/v1/operationalState. PARTIAL_SHUTDOWN refuses new registrations
(every binding kind) and AAR-I with the configured codes and serves discovery, updates,
deregistrations and in-session Rx; COMPLETE_SHUTDOWN refuses every SBI and Rx request; the NRF
hears SUSPENDED at once (NFUpdate) and REGISTERED again on NORMAL; the state survives a
restart; `system_operational_state` follows it; changes are logged."""

import json

import pytest

from rx_support import metric, rx_lab  # noqa: F401
from support import (Ue, assert_problem, binding, delete, discover, patch, post_binding,
                     register, wait_until)
from ue_support import post_ue, ue_binding

PATH = "/oc-bsf-configuration/v1/operationalState"
MBS = {"mbsSessionId": {"tmgi": {"mbsServiceId": "A1B2C3", "plmnId": {"mcc": "001",
                                                                     "mnc": "01"}}},
       "pcfFqdn": "pcf-mbs1.example.com"}


def set_state(server, state):
    resp = server.admin.put(PATH, json={"operationalState": state})
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"operationalState": state}
    return resp


def state_of(server):
    resp = server.admin.get(PATH)
    assert resp.status_code == 200, resp.text
    return resp.json()["operationalState"]


def refused(resp, status=503, cause="NF_SERVICE_FAILOVER", state=None):
    body = assert_problem(resp, status, cause)
    if state:
        assert state in body["detail"], body
    return body


@pytest.fixture
def server(bsfd_factory):
    return bsfd_factory()


def test_starts_normal_and_the_public_listener_does_not_serve_the_resource(server):
    assert state_of(server) == "NORMAL"
    assert metric(server, "system_operational_state") == 1
    assert server.ops.get(PATH).status_code == 404  # it changes state: admin listener only


@pytest.mark.parametrize("body", [
    b"", b"not json", b"[]", b'{"operationalState": "SHUTDOWN"}', b'{"operationalState": 1}',
    b'{"state": "NORMAL"}', b'{"operationalState": "NORMAL", "extra": 1}',
    b'{"operationalState": "normal"}'])
def test_a_bad_body_is_refused_and_changes_nothing(server, body):
    resp = server.admin.put(PATH, content=body, headers={"content-type": "application/json"})
    assert resp.status_code == 400, resp.text
    assert resp.json()["status"] == 400 and "operationalState" in resp.json()["detail"]
    assert state_of(server) == "NORMAL"


def test_other_methods_get_405(server):
    assert server.admin.post(PATH, json={"operationalState": "NORMAL"}).status_code == 405
    assert server.admin.delete(PATH).status_code == 405


def test_partial_refuses_registrations_and_serves_the_rest(server):
    c = server.client
    ue = Ue()
    binding_id, _ = register(c, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    set_state(server, "PARTIAL_SHUTDOWN")
    assert metric(server, "system_operational_state") == 2
    refused(post_binding(c, binding(ipv4Addr=Ue().ipv4)), state="PARTIAL_SHUTDOWN")
    refused(post_ue(c, ue_binding(Ue())), state="PARTIAL_SHUTDOWN")
    refused(c.post("/pcf-mbs-bindings", json=MBS), state="PARTIAL_SHUTDOWN")
    assert discover(c, ipv4Addr=ue.ipv4).status_code == 200
    assert patch(c, binding_id, {"pcfFqdn": "pcf9.example.com"}).status_code == 200
    assert delete(c, binding_id).status_code == 204
    assert metric(server, "bsf_sbi_controlled_shutdown_reject_total") == 3
    set_state(server, "NORMAL")
    register(c, binding(ipv4Addr=Ue().ipv4))
    log = server.stderr_text()
    assert "operational state NORMAL -> PARTIAL_SHUTDOWN" in log
    assert "operational state PARTIAL_SHUTDOWN -> NORMAL" in log


def test_complete_refuses_everything_then_normal_directly(server):
    c = server.client
    ue = Ue()
    binding_id, _ = register(c, binding(ipv4Addr=ue.ipv4))
    set_state(server, "COMPLETE_SHUTDOWN")
    assert metric(server, "system_operational_state") == 3
    refused(discover(c, ipv4Addr=ue.ipv4), state="COMPLETE_SHUTDOWN")
    refused(patch(c, binding_id, {"pcfFqdn": "pcf9.example.com"}))
    refused(delete(c, binding_id))
    refused(post_binding(c, binding(ipv4Addr=Ue().ipv4)))
    # the refusal comes before routing: even an unknown resource is refused
    refused(c.get("/no-such-resource"))
    set_state(server, "NORMAL")  # COMPLETE -> NORMAL without PARTIAL
    assert metric(server, "system_operational_state") == 1
    assert discover(c, ipv4Addr=ue.ipv4).status_code == 200
    assert delete(c, binding_id).status_code == 204


def test_the_state_survives_a_restart(server):
    set_state(server, "COMPLETE_SHUTDOWN")
    server.restart()
    assert state_of(server) == "COMPLETE_SHUTDOWN"
    assert metric(server, "system_operational_state") == 3
    refused(discover(server.client, ipv4Addr=Ue().ipv4))
    assert "operational state COMPLETE_SHUTDOWN (kept in the store" in server.stderr_text()
    set_state(server, "PARTIAL_SHUTDOWN")
    server.restart()
    assert state_of(server) == "PARTIAL_SHUTDOWN"
    set_state(server, "NORMAL")
    server.restart()
    assert state_of(server) == "NORMAL"
    register(server.client, binding(ipv4Addr=Ue().ipv4))


def test_the_refusal_codes_are_configurable(bsfd_factory):
    server = bsfd_factory({"controlled_shutdown.sbi_status": "429",
                           "controlled_shutdown.sbi_cause": "NF_CONGESTION"})
    set_state(server, "PARTIAL_SHUTDOWN")
    refused(post_binding(server.client, binding(ipv4Addr=Ue().ipv4)), 429, "NF_CONGESTION")


# ---- Rx ---------------------------------------------------------------------------------------

def test_rx_partial_refuses_aar_i_and_serves_the_session(rx_lab):
    lab = rx_lab()
    ue = lab.registered_ue()
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    set_state(lab.bsfd, "PARTIAL_SHUTDOWN")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 3004, reply
    assert lab.af.cmd(f"aar-u session={sid}")["code"] == 2001
    assert lab.af.cmd(f"str session={sid}")["code"] == 2001
    assert metric(lab.bsfd, "diam_controlled_shutdown_message_reject_total") == 1
    set_state(lab.bsfd, "NORMAL")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001


def test_rx_complete_refuses_every_request_with_the_configured_code(rx_lab):
    lab = rx_lab(settings={"controlled_shutdown.diameter_result_code": "5012"})
    ue = lab.registered_ue()
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    set_state(lab.bsfd, "COMPLETE_SHUTDOWN")
    assert lab.af.cmd(f"aar-u session={sid}")["code"] == 5012
    assert lab.af.cmd(f"str session={sid}")["code"] == 5012
    assert lab.aar_i(ip=ue.ipv4)["code"] == 5012
    assert not lab.pcf().received(sid, "str")  # nothing reached the PCF
    set_state(lab.bsfd, "NORMAL")
    assert lab.af.cmd(f"str session={sid}")["code"] == 2001


# ---- NRF --------------------------------------------------------------------------------------

def statuses(sim):
    """nfStatus of every NFUpdate, in order."""
    out = []
    for _, _, _, _, body in sim.of("PATCH"):
        out += [op["value"] for op in json.loads(body) if op["path"] == "/nfStatus"]
    return out


def test_nrf_hears_suspended_at_once_and_registered_on_normal(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=60).start()  # no heartbeat would come on its own during the test
    server = bsfd_factory({"nrf.uri": sim.uri, "nrf.retry_min_ms": "100"})
    wait_until(lambda: sim.of("PUT"), what="NFRegister")
    nf_id = sim.of("PUT")[0][2].rsplit("/", 1)[1]
    set_state(server, "PARTIAL_SHUTDOWN")
    wait_until(lambda: statuses(sim) == ["SUSPENDED"], timeout=5, what="NFUpdate SUSPENDED")
    set_state(server, "COMPLETE_SHUTDOWN")  # still SUSPENDED: the heartbeat keeps going
    wait_until(lambda: statuses(sim) == ["SUSPENDED"] * 2, timeout=5, what="a second update")
    assert sim.instances[nf_id]["profile"]["nfStatus"] == "SUSPENDED"
    set_state(server, "NORMAL")
    wait_until(lambda: statuses(sim)[-1:] == ["REGISTERED"], timeout=5, what="REGISTERED")
    assert sim.instances[nf_id]["profile"]["nfStatus"] == "REGISTERED"


def test_a_restart_in_shutdown_registers_suspended(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=60).start()
    server = bsfd_factory({"nrf.uri": sim.uri, "nrf.retry_min_ms": "100"})
    wait_until(lambda: sim.of("PUT"), what="NFRegister")
    set_state(server, "COMPLETE_SHUTDOWN")
    server.restart()
    wait_until(lambda: len(sim.of("PUT")) >= 2, what="NFRegister after the restart")
    assert json.loads(sim.of("PUT")[-1][4])["nfStatus"] == "SUSPENDED"
