"""Replication of PCF-for-UE and MBS bindings between two sites through a real Kafka broker:
what one site writes the other serves; a newer UE registration at one site replaces the
other site's binding everywhere; an MBS session bound at one site is refused at the other;
the sites converge to the same digest. (Concurrent registrations, where neither site saw
the other's, are resolved by the creating site on apply: tests/unit/test_ue_commands.c and
test_mbs_commands.c.) Bodies are validated against the OpenAPI schemas (ue_support)."""
import json

import openapi
from replication_support import wait_converged, wait_for
from support import Ue, assert_no_content
from ue_support import delete_ue, found_ue, register_ue, ue_binding

TIMEOUT = 30


def test_ue_bindings_replicate_and_the_newer_replaces_the_older(site_factory):
    a, b = site_factory.start(2)
    ue = Ue()
    old_id, old = register_ue(a.client, ue_binding(ue, pcfForUeFqdn="pcf-a.example.com"))
    wait_for(lambda: found_ue(b.client, supi=ue.supi) == [old], TIMEOUT, "A's UE binding at B")
    new_id, new = register_ue(b.client, ue_binding(ue, pcfForUeFqdn="pcf-b.example.com"))
    # B has seen A's binding: its registration replaces it at once (B writes the
    # deregistration); A applies both.
    wait_for(lambda: all(found_ue(s.client, supi=ue.supi) == [new] for s in (a, b)), TIMEOUT,
             "only the newer UE binding at both sites")
    wait_for(lambda: all(found_ue(s.client, gpsi=ue.gpsi) == [new] for s in (a, b)), TIMEOUT,
             "the GPSI index too")
    events = a.history(supi=ue.supi)
    dereg = [e for e in events if e["type"] == "UeBindingDeregistered"]
    assert len(dereg) == 1 and dereg[0]["bindingId"] == old_id and dereg[0]["site"] == 2, events
    assert dereg[0]["replacedBy"] == new_id
    assert_no_content(delete_ue(a.client, new_id))
    wait_for(lambda: found_ue(b.client, supi=ue.supi) == [], TIMEOUT, "the deregistration at B")
    digest = wait_converged([a, b])
    assert a.digest() == digest == b.digest()
    assert a.active_sessions()["ueBindingCount"] == b.active_sessions()["ueBindingCount"] == 0


def test_mbs_bindings_replicate(site_factory):
    a, b = site_factory.start(2)
    session = {"tmgi": {"mbsServiceId": "00BEEF", "plmnId": {"mcc": "001", "mnc": "01"}}}
    body = {"mbsSessionId": session, "pcfFqdn": "pcf-mbs.example.com"}
    openapi.validate(body, "PcfMbsBinding")
    resp = a.client.post("/pcf-mbs-bindings", content=json.dumps(body).encode(),
                         headers={"content-type": "application/json"})
    assert resp.status_code == 201, resp.text
    query = {"mbs-session-id": json.dumps(session)}

    def at_b():
        r = b.client.get("/pcf-mbs-bindings", params=query)
        return r.status_code == 200 and r.json() == [body]

    wait_for(at_b, TIMEOUT, "A's MBS binding at B")
    # B now refuses a second PCF for the session, with A's PCF in the answer
    other = {"mbsSessionId": session, "pcfFqdn": "pcf-other.example.com"}
    resp = b.client.post("/pcf-mbs-bindings", content=json.dumps(other).encode(),
                         headers={"content-type": "application/json"})
    assert resp.status_code == 403, resp.text
    problem = resp.json()
    openapi.validate(problem, "MbsExtProblemDetails")
    assert problem["pcfFqdn"] == "pcf-mbs.example.com"
    digest = wait_converged([a, b])
    assert b.digest() == digest
