"""PATCH /pcfBindings/{bindingId}: merge patch (RFC 7396) of PcfBindingPatch members,
null removal, re-indexing, the register rules on the result, 403 for other members."""

import json

import pytest

from support import (Ue, assert_binding, assert_not_found, assert_problem, binding, found,
                     new_pcf_id, patch, register)


def patched(body, changes):
    """RFC 7396 applied to a flat binding (PcfBindingPatch members are all top level)."""
    result = dict(body)
    for name, value in changes.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = value
    return result


def test_new_ipv4_address_is_reindexed(client):
    ue, moved = Ue(), Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    updated = assert_binding(patch(client, binding_id, {"ipv4Addr": moved.ipv4}), 200)
    assert updated == patched(stored, {"ipv4Addr": moved.ipv4})
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert found(client, ipv4Addr=moved.ipv4) == updated


def test_null_removes_a_member_and_its_index(client):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, ipv6Prefix=ue.ipv6))
    updated = assert_binding(patch(client, binding_id, {"ipv6Prefix": None}), 200)
    assert updated == patched(stored, {"ipv6Prefix": None})
    assert "ipv6Prefix" not in updated
    assert_not_found(client, ipv6Prefix=ue.ipv6_addr)
    assert found(client, ipv4Addr=ue.ipv4) == updated


def test_additional_prefixes_are_added_and_removed(client):
    ue, extra = Ue(), Ue()
    binding_id, stored = register(client, binding(ipv6Prefix=ue.ipv6))
    updated = assert_binding(patch(client, binding_id, {"addIpv6Prefixes": [extra.ipv6]}), 200)
    assert updated == patched(stored, {"addIpv6Prefixes": [extra.ipv6]})
    assert found(client, ipv6Prefix=extra.ipv6_addr) == updated
    removed = assert_binding(patch(client, binding_id, {"addIpv6Prefixes": None}), 200)
    assert removed == stored
    assert_not_found(client, ipv6Prefix=extra.ipv6_addr)
    assert found(client, ipv6Prefix=ue.ipv6_addr) == stored


def test_mac_addresses_are_replaced_and_canonicalised(client):
    ue, new, extra = Ue(), Ue(), Ue()
    binding_id, stored = register(client, binding(macAddr48=ue.mac, dnn="ethernet"))
    changes = {"macAddr48": new.mac.upper(), "addMacAddrs": [extra.mac.upper()]}
    updated = assert_binding(patch(client, binding_id, changes), 200)
    assert updated == patched(stored, {"macAddr48": new.mac, "addMacAddrs": [extra.mac]})
    assert_not_found(client, macAddr48=ue.mac)
    assert found(client, macAddr48=new.mac) == updated
    assert found(client, macAddr48=extra.mac) == updated


def test_switching_from_ipv4_to_ipv6(client):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, ipDomain="dom-a"))
    changes = {"ipv4Addr": None, "ipDomain": None, "ipv6Prefix": ue.ipv6}
    updated = assert_binding(patch(client, binding_id, changes), 200)
    assert updated == patched(stored, changes)
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert found(client, ipv6Prefix=ue.ipv6_addr) == updated


def test_pcf_members_are_replaced(client):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, pcfId=new_pcf_id()))
    changes = {"pcfId": new_pcf_id(), "pcfFqdn": "pcf7.example.com",
               "pcfIpEndPoints": [{"ipv4Address": "192.0.2.77", "port": 8080}],
               "pcfDiamHost": "pcf7.diameter.example.com", "pcfDiamRealm": "diameter.example.com"}
    updated = assert_binding(patch(client, binding_id, changes), 200)
    assert updated == patched(stored, changes)
    assert found(client, ipv4Addr=ue.ipv4) == updated


def test_empty_patch_returns_the_binding_and_writes_nothing(bsfd, client):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4))
    events_before = bsfd.history(binding=binding_id)
    assert assert_binding(patch(client, binding_id, {}), 200) == stored
    assert bsfd.history(binding=binding_id) == events_before


def test_update_event_is_recorded(bsfd, client):
    ue, moved = Ue(), Ue()
    binding_id, _ = register(client, binding(ipv4Addr=ue.ipv4))
    updated = assert_binding(patch(client, binding_id, {"ipv4Addr": moved.ipv4}), 200)
    events = bsfd.history(binding=binding_id)
    assert [event["type"] for event in events] == ["BindingRegistered", "BindingUpdated"]
    assert events[-1]["binding"] == updated


@pytest.mark.parametrize("member, value", [
    ("supi", "imsi-001019999999999"),
    ("gpsi", "msisdn-4670000999"),
    ("dnn", "other.example"),
    ("snssai", {"sst": 2}),
    ("pcfSmFqdn", "pcf-sm.example.com"),
    ("pcfSmIpEndPoints", [{"ipv4Address": "192.0.2.9"}]),
    ("suppFeat", "1"),
    ("pcfSetId", "setabc.pcfset.5gc.mnc012.mcc345"),
    ("recoveryTime", "2024-05-01T10:20:30Z"),
    ("paraCom", {"dnn": "internet"}),
    ("bindLevel", "NF_SET"),
    ("ipv4FrameRouteList", ["10.9.0.0/16"]),
    ("ipv6FrameRouteList", ["2001:db8:fffe::/48"]),
    ("fooBar", 1),
])
def test_members_outside_pcf_binding_patch_are_not_modifiable(client, member, value):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    assert_problem(patch(client, binding_id, {member: value}), 403, "MODIFICATION_NOT_ALLOWED")
    assert found(client, ipv4Addr=ue.ipv4) == stored


@pytest.mark.parametrize("name, initial, changes, cause", [
    ("remove-only-ue-address", {"ipv4Addr": "UE4"}, {"ipv4Addr": None}, "MANDATORY_IE_MISSING"),
    # pcfFqdn is not nullable in PcfBindingPatch: refused as a bad value or as a missing PCF address
    ("remove-every-pcf-address", {"ipv4Addr": "UE4"}, {"pcfFqdn": None},
     ("MANDATORY_IE_MISSING", "OPTIONAL_IE_INCORRECT")),
    ("mac-added-to-ip", {"ipv4Addr": "UE4"}, {"macAddr48": "UEMAC"}, "OPTIONAL_IE_INCORRECT"),
    ("ip-domain-without-ipv4", {"ipv4Addr": "UE4", "ipv6Prefix": "UE6", "ipDomain": "dom-a"},
     {"ipv4Addr": None}, "OPTIONAL_IE_INCORRECT"),
    ("diam-host-without-realm", {"ipv4Addr": "UE4"}, {"pcfDiamHost": "h.diameter.example.com"},
     "OPTIONAL_IE_INCORRECT"),
    ("malformed-optional-member", {"ipv4Addr": "UE4"}, {"pcfFqdn": "x"}, "OPTIONAL_IE_INCORRECT"),
    # the same open point as in test_pcf_bindings_errors: a bad second UE address
    ("malformed-second-address", {"ipv4Addr": "UE4"}, {"ipv6Prefix": "2001:db8::1"},
     ("MANDATORY_IE_INCORRECT", "OPTIONAL_IE_INCORRECT")),
    ("wrong-type", {"ipv4Addr": "UE4"}, {"pcfIpEndPoints": "192.0.2.1"}, "OPTIONAL_IE_INCORRECT"),
])
def test_result_must_satisfy_the_register_rules(client, name, initial, changes, cause):
    ue = Ue()
    values = {"UE4": ue.ipv4, "UE6": ue.ipv6, "UEMAC": ue.mac}
    initial = {k: values.get(v, v) for k, v in initial.items()}
    changes = {k: values.get(v, v) if isinstance(v, str) else v for k, v in changes.items()}
    binding_id, stored = register(client, binding(**initial))
    resp = patch(client, binding_id, changes)
    assert_problem(resp, 400, cause)
    assert found(client, ipv4Addr=ue.ipv4) == stored
    assert assert_binding(patch(client, binding_id, {}), 200) == stored


@pytest.mark.parametrize("body", [b"", b"{", b"[]", b'"x"', b"null", b'{"ipv4Addr": "10.0.0.1",}',
                                  b'{"pcfFqdn": "a.example.com", "pcfFqdn": "b.example.com"}'])
def test_malformed_patch_body(client, body):
    ue = Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4))
    resp = client.patch(f"/pcfBindings/{binding_id}", content=body,
                        headers={"content-type": "application/merge-patch+json"})
    assert_problem(resp, 400, "INVALID_MSG_FORMAT")
    assert found(client, ipv4Addr=ue.ipv4) == stored


@pytest.mark.parametrize("content_type", ["application/json", "text/plain", None])
def test_patch_needs_merge_patch_content_type(client, content_type):
    ue, moved = Ue(), Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4))
    headers = {"content-type": content_type} if content_type else {}
    resp = client.patch(f"/pcfBindings/{binding_id}", content=json.dumps({"ipv4Addr": moved.ipv4}).encode(),
                        headers=headers)
    assert_problem(resp, 415, "INVALID_MSG_FORMAT")
    assert found(client, ipv4Addr=ue.ipv4) == stored
    assert_not_found(client, ipv4Addr=moved.ipv4)


def test_patch_without_content_length_is_read_to_the_end(client):
    """A body of unknown length (DATA until END_STREAM) is legal HTTP/2 (RFC 9113 §8.1.1)."""
    ue, moved = Ue(), Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4))
    body = json.dumps({"ipv4Addr": moved.ipv4}).encode()
    resp = client.patch(f"/pcfBindings/{binding_id}", content=iter([body]),
                        headers={"content-type": "application/merge-patch+json"})
    assert "content-length" not in resp.request.headers
    assert resp.status_code == 200, resp.text
    assert resp.json()["ipv4Addr"] == moved.ipv4
