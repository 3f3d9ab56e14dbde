"""/pcf-ue-bindings: register (201, absolute Location, the stored body), discovery by SUPI
and GPSI (200 with an array, [] on a miss), merge-patch update, deregister, the collision
rule (a new binding for a UE replaces the old one), the active count, restart and digest."""
import json

import openapi

from support import (Ue, allowed_methods, assert_no_content, assert_problem, assert_rebuild_matches,
                     metrics, new_pcf_id, wait_until)
from ue_support import (assert_ue_binding, delete_ue, discover_ue, found_ue, patch_ue, post_ue,
                        register_ue, ue_binding)


def full_binding(ue):
    return ue_binding(
        ue,
        pcfForUeIpEndPoints=[{"ipv4Address": "192.0.2.10", "transport": "TCP", "port": 8080},
                             {"ipv6Address": "2001:db8:ffff::10", "port": 8443}],
        pcfId=new_pcf_id(),
        recoveryTime="2024-05-01T10:20:30.123Z",
        pcfSetId="setxyz.pcfset.5gc.mnc012.mcc345",
        bindLevel="NF_INSTANCE",
        suppFeat="0",
    )


def test_register_returns_201_location_and_the_stored_binding(bsfd, client):
    ue = Ue()
    body = full_binding(ue)
    binding_id, stored = register_ue(client, body)
    assert stored == body
    assert found_ue(client, supi=ue.supi) == [body]
    assert found_ue(client, gpsi=ue.gpsi) == [body]
    assert found_ue(client, supi=ue.supi, gpsi=ue.gpsi) == [body]
    location = f"{bsfd.api_root}/nbsf-management/v1/pcf-ue-bindings/{binding_id}"
    assert client.delete(location).status_code == 204


def test_minimal_binding_with_end_points_only(client):
    ue = Ue()
    body = {"supi": ue.supi, "pcfForUeIpEndPoints": [{"ipv4Address": "192.0.2.11"}]}
    _, stored = register_ue(client, body)
    assert stored == body
    assert found_ue(client, supi=ue.supi) == [body]
    assert found_ue(client, gpsi=ue.gpsi) == []  # no GPSI registered


def test_miss_answers_200_with_an_empty_array(client):
    ue = Ue()
    assert found_ue(client, supi=ue.supi) == []
    assert found_ue(client, gpsi=ue.gpsi) == []


def test_supi_and_gpsi_must_both_match(client):
    ue, other = Ue(), Ue()
    register_ue(client, ue_binding(ue))
    assert found_ue(client, supi=ue.supi, gpsi=other.gpsi) == []


def test_update_merges_the_patch(client):
    ue = Ue()
    binding_id, stored = register_ue(client, ue_binding(ue))
    pcf_id = new_pcf_id()
    changes = {"pcfForUeFqdn": "pcf-ue2.example.com", "pcfId": pcf_id,
               "pcfForUeIpEndPoints": [{"ipv4Address": "192.0.2.12", "port": 80}]}
    updated = assert_ue_binding(patch_ue(client, binding_id, changes), 200)
    assert updated == {**stored, **changes}
    assert found_ue(client, supi=ue.supi) == [updated]
    assert assert_ue_binding(patch_ue(client, binding_id, {}), 200) == updated


def test_deregister_then_404(client):
    ue = Ue()
    binding_id, _ = register_ue(client, ue_binding(ue))
    assert_no_content(delete_ue(client, binding_id))
    assert found_ue(client, supi=ue.supi) == []
    assert_problem(delete_ue(client, binding_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(patch_ue(client, binding_id, {"pcfForUeFqdn": "x.example.com"}), 404,
                   "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(delete_ue(client, "0" * 32), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(delete_ue(client, "not-an-id"), 404, "RESOURCE_CONTEXT_NOT_FOUND")


def test_a_new_binding_for_the_ue_replaces_the_old_one(bsfd, client):
    ue = Ue()
    old_id, _ = register_ue(client, ue_binding(ue, pcfForUeFqdn="pcf-old.example.com"))
    new_id, new = register_ue(client, ue_binding(ue, pcfForUeFqdn="pcf-new.example.com"))
    assert new_id != old_id
    assert found_ue(client, supi=ue.supi) == [new]
    assert found_ue(client, gpsi=ue.gpsi) == [new]
    assert_problem(delete_ue(client, old_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    events = bsfd.history(supi=ue.supi)
    replaced = [e for e in events if e["type"] == "UeBindingDeregistered"]
    assert len(replaced) == 1 and replaced[0]["bindingId"] == old_id, events
    assert replaced[0]["reason"] == "replaced_by_collision"
    assert replaced[0]["replacedBy"] == new_id


def test_active_count_on_ops_and_metrics(bsfd, client):
    before = bsfd.active_sessions()["ueBindingCount"]
    ue = Ue()
    binding_id, _ = register_ue(client, ue_binding(ue))
    assert bsfd.active_sessions()["ueBindingCount"] == before + 1
    assert metrics(bsfd)["bsf_active_ue_bindings"] == before + 1
    assert_no_content(delete_ue(client, binding_id))
    assert bsfd.active_sessions()["ueBindingCount"] == before


def test_methods(client):
    resp = client.put("/pcf-ue-bindings", content=b"{}", headers={"content-type": "application/json"})
    assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    assert allowed_methods(resp) == {"GET", "POST"}
    resp = client.get(f"/pcf-ue-bindings/{'0' * 32}")
    assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    assert allowed_methods(resp) == {"DELETE", "PATCH"}


def test_restart_keeps_bindings_and_digest_equals_rebuild(bsfd_factory, tmp_path):
    server = bsfd_factory()
    client = server.reconnect()
    ue, gone = Ue(), Ue()
    binding_id, body = register_ue(client, full_binding(ue))
    gone_id, _ = register_ue(client, ue_binding(gone))
    assert_no_content(delete_ue(client, gone_id))
    server.restart()
    client = server.reconnect()
    assert found_ue(client, supi=ue.supi) == [body]
    assert found_ue(client, supi=gone.supi) == []
    assert server.count() == 0 and server.active_sessions()["ueBindingCount"] == 1
    assert_rebuild_matches(server, tmp_path / "rebuilt")


def test_bsfctl_knows_the_ue_events(bsfd, client):
    """history by SUPI and GPSI, export (JSON lines, the docs/events.md form) and stats."""
    ue = Ue()
    binding_id, body = register_ue(client, ue_binding(ue))
    changes = {"pcfForUeFqdn": "pcf-ue9.example.com"}
    updated = assert_ue_binding(patch_ue(client, binding_id, changes), 200)
    assert_no_content(delete_ue(client, binding_id))
    by_supi = bsfd.history(supi=ue.supi)
    assert [e["type"] for e in by_supi] == ["UeBindingRegistered", "UeBindingUpdated",
                                            "UeBindingDeregistered"], by_supi
    assert by_supi[0]["ueBinding"] == body and by_supi[1]["ueBinding"] == updated
    assert by_supi[2]["reason"] == "pcf_request"
    assert [e["type"] for e in bsfd.history(supi=ue.supi)] == \
        [e["type"] for e in bsfd.history(binding=binding_id)]
    by_gpsi = bsfd.bsfctl("history", "--gpsi", ue.gpsi, "--json").stdout.splitlines()
    assert len(by_gpsi) == 3, by_gpsi
    exported = [json.loads(line) for line in bsfd.bsfctl("export").stdout.splitlines()
                if binding_id in line]
    assert [e["type"] for e in exported] == ["UeBindingRegistered", "UeBindingUpdated",
                                             "UeBindingDeregistered"], exported
    openapi.validate(exported[0]["ueBinding"], "PcfForUeBinding")
    stats = json.loads(bsfd.bsfctl("stats", "--json").stdout)
    assert stats["liveUeBindings"] == bsfd.active_sessions()["ueBindingCount"]
    assert stats["databases"]["ue_bindings"]["entries"] >= 1


def test_supported_features(client):
    """suppFeat of a registration is stored as the intersection with the BSF's features; with
    supp-feat, discovery answers the intersection with the consumer's."""
    ue = Ue()
    _, stored = register_ue(client, ue_binding(ue, suppFeat="ff"))
    assert stored["suppFeat"] == "7"
    assert [b["suppFeat"] for b in found_ue(client, supi=ue.supi, **{"supp-feat": "1"})] == ["1"]
    assert [b["suppFeat"] for b in found_ue(client, supi=ue.supi, **{"supp-feat": "8"})] == ["0"]
