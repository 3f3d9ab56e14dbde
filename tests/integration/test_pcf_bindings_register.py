"""POST /pcfBindings: 201 + Location, round trip of every member, canonical forms and
the validation rules of docs/nbsf-management.md "Register"."""

import json
import re

import pytest

import openapi
from support import (MERGE_PATCH, Ue, assert_binding, assert_not_found, assert_problem, binding, delete,
                     found, new_pcf_id, patch, post_binding, register)


def full_ip_binding(ue, extra):
    """Every PcfBinding member that an IP PDU session can carry, in canonical form."""
    return binding(
        supi=ue.supi,
        gpsi=ue.gpsi,
        ipv4Addr=ue.ipv4,
        ipDomain="domain-a",
        ipv6Prefix=ue.ipv6,
        addIpv6Prefixes=[extra.ipv6],
        dnn=ue.dnn,
        snssai={"sst": 1, "sd": "00000A"},
        pcfFqdn="pcf1.example.com",
        pcfIpEndPoints=[{"ipv4Address": "192.0.2.1", "transport": "TCP", "port": 8080},
                        {"ipv6Address": "2001:db8:ffff::1", "port": 8443}],
        pcfDiamHost="pcf1.diameter.example.com",
        pcfDiamRealm="diameter.example.com",
        pcfSmFqdn="pcf-sm.example.com",
        pcfSmIpEndPoints=[{"ipv4Address": "192.0.2.2", "port": 80}],
        suppFeat="7",
        pcfId=new_pcf_id(),
        pcfSetId="setxyz.pcfset.5gc.mnc012.mcc345",
        recoveryTime="2024-05-01T10:20:30.123Z",
        paraCom={"supi": ue.supi, "dnn": ue.dnn, "snssai": {"sst": 1, "sd": "00000A"}},
        bindLevel="NF_INSTANCE",
        ipv4FrameRouteList=["10.200.0.0/16", "10.201.1.0/24"],
        ipv6FrameRouteList=["2001:db8:ffff::/48"],
    )


def test_minimal_registration_returns_201_location_and_the_binding(bsfd, client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    resp = post_binding(client, body)
    assert resp.http_version == "HTTP/2"
    assert assert_binding(resp, 201) == body
    location = resp.headers["location"]
    prefix = f"{bsfd.api_root}/nbsf-management/v1/pcfBindings/"
    assert location.startswith(prefix), location
    assert re.fullmatch(r"[0-9a-f]{32}", location[len(prefix):]), location
    assert found(client, ipv4Addr=ue.ipv4) == body


def test_location_is_the_binding_resource(client):
    """PATCH and DELETE on the absolute Location reach the binding just created."""
    ue, other = Ue(), Ue()
    resp = post_binding(client, binding(ipv4Addr=ue.ipv4))
    assert_binding(resp, 201)
    location = resp.headers["location"]
    moved = assert_binding(client.patch(location, content=json.dumps({"ipv4Addr": other.ipv4}).encode(),
                                        headers={"content-type": MERGE_PATCH}), 200)
    assert moved["ipv4Addr"] == other.ipv4
    assert client.delete(location).status_code == 204
    assert_not_found(client, ipv4Addr=other.ipv4)


def test_every_ip_member_round_trips(client):
    ue, extra = Ue(), Ue()
    body = full_ip_binding(ue, extra)
    openapi.validate(body, "PcfBinding")
    _, stored = register(client, body)
    assert stored == body
    assert found(client, ipv4Addr=ue.ipv4) == body
    assert found(client, ipv6Prefix=ue.ipv6_addr) == body
    assert found(client, ipv6Prefix=extra.ipv6_addr) == body


def test_every_mac_member_round_trips(client):
    ue, extra = Ue(), Ue()
    body = binding(supi=ue.supi, gpsi=ue.gpsi, dnn="ethernet", snssai={"sst": 2},
                   macAddr48=ue.mac, addMacAddrs=[extra.mac], pcfId=new_pcf_id(),
                   pcfIpEndPoints=[{"ipv4Address": "192.0.2.3"}], pcfFqdn=None)
    _, stored = register(client, body)
    assert stored == body
    assert found(client, macAddr48=ue.mac) == body
    assert found(client, macAddr48=extra.mac) == body


def test_members_are_returned_in_canonical_form(client):
    ue, extra = Ue(), Ue()
    n, m = ue.n, extra.n
    sent = binding(ipv6Prefix=f"2001:db8:{n:x}:0:0:0:0:0/64",
                   addIpv6Prefixes=[f"2001:db8:{m:x}:0:0:1:0:0/128", f"2001:db8:{m:x}:1:1:0:0:0/128"],
                   snssai={"sst": 3, "sd": "abcdef"})
    openapi.validate(sent, "PcfBinding")
    _, stored = register(client, sent)
    assert stored["ipv6Prefix"] == f"2001:db8:{n:x}::/64"
    # RFC 5952: the longest run of zero fields is compressed; on a tie, the first one
    assert stored["addIpv6Prefixes"] == [f"2001:db8:{m:x}::1:0:0/128", f"2001:db8:{m:x}:1:1::/128"]
    assert stored["snssai"] == {"sst": 3, "sd": "ABCDEF"}
    assert found(client, ipv6Prefix=f"2001:db8:{n:x}::5/128") == stored


def test_mac_addresses_are_returned_lowercase(client):
    ue, extra = Ue(), Ue()
    sent = binding(macAddr48=ue.mac.upper(), addMacAddrs=[extra.mac.upper()])
    _, stored = register(client, sent)
    assert stored["macAddr48"] == ue.mac
    assert stored["addMacAddrs"] == [extra.mac]
    assert found(client, macAddr48=ue.mac) == stored


def test_host_bits_of_a_prefix_are_zeroed(client):
    """Issue 9: the canonical prefix (2001:db8::1/64 is stored as 2001:db8::/64)."""
    ue = Ue()
    sent = binding(ipv6Prefix=f"2001:db8:{ue.n:x}:0:1:2:3:4/64")
    _, stored = register(client, sent)
    assert stored["ipv6Prefix"] == f"2001:db8:{ue.n:x}::/64"
    assert found(client, ipv6Prefix=f"2001:db8:{ue.n:x}::99/128") == stored


def test_unknown_members_are_ignored_and_not_stored(client):
    ue = Ue()
    sent = binding(ipv4Addr=ue.ipv4, vendorData={"x": [1, 2]}, fooBar=5)
    resp = post_binding(client, sent)
    expected = binding(ipv4Addr=ue.ipv4)
    assert assert_binding(resp, 201) == expected
    assert found(client, ipv4Addr=ue.ipv4) == expected


def test_content_type_parameters_are_allowed(client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    resp = client.post("/pcfBindings", content=json.dumps(body).encode(),
                       headers={"content-type": "application/json; charset=utf-8"})
    assert assert_binding(resp, 201) == body


@pytest.mark.parametrize("pcf", [
    {"pcfFqdn": "pcf2.example.com"},
    {"pcfIpEndPoints": [{"ipv6Address": "2001:db8:ffff::2", "port": 80}]},
    {"pcfDiamHost": "pcf3.diameter.example.com", "pcfDiamRealm": "diameter.example.com"},
], ids=["fqdn", "ip-endpoints", "diameter"])
def test_each_kind_of_pcf_address_is_enough(client, pcf):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4, **{"pcfFqdn": None, **pcf})
    _, stored = register(client, body)
    assert stored == body


@pytest.mark.parametrize("address", ["ipv4Addr", "ipv6Prefix", "macAddr48"])
def test_each_kind_of_ue_address_is_enough(client, address):
    ue = Ue()
    value = {"ipv4Addr": ue.ipv4, "ipv6Prefix": ue.ipv6, "macAddr48": ue.mac}[address]
    query = {"ipv4Addr": ue.ipv4, "ipv6Prefix": ue.ipv6_addr, "macAddr48": ue.mac}[address]
    body = binding(**{address: value})
    register(client, body)
    assert found(client, **{address: query}) == body


def test_ids_are_distinct(client):
    ids = {register(client, binding(ipv4Addr=Ue().ipv4))[0] for _ in range(5)}
    assert len(ids) == 5


def _rule_cases():
    """(name, body builder, cause, invalid param or None)."""
    return [
        ("no-dnn", lambda ue: binding(ipv4Addr=ue.ipv4, dnn=None), "MANDATORY_IE_MISSING", "/dnn"),
        ("no-snssai", lambda ue: binding(ipv4Addr=ue.ipv4, snssai=None), "MANDATORY_IE_MISSING", "/snssai"),
        ("no-ue-address", lambda ue: binding(supi=ue.supi), "MANDATORY_IE_MISSING", None),
        ("no-pcf-address", lambda ue: binding(ipv4Addr=ue.ipv4, pcfFqdn=None, pcfSmFqdn="pcf-sm.example.com"),
         "MANDATORY_IE_MISSING", None),
        ("ipdomain-without-ipv4", lambda ue: binding(ipv6Prefix=ue.ipv6, ipDomain="d"),
         "OPTIONAL_IE_INCORRECT", None),
        ("diamhost-without-realm", lambda ue: binding(ipv4Addr=ue.ipv4, pcfDiamHost="h.diameter.example.com"),
         "OPTIONAL_IE_INCORRECT", None),
        ("diamrealm-without-host", lambda ue: binding(ipv4Addr=ue.ipv4, pcfDiamRealm="diameter.example.com"),
         "OPTIONAL_IE_INCORRECT", None),
        ("mac-with-ipv4", lambda ue: binding(ipv4Addr=ue.ipv4, macAddr48=ue.mac), "OPTIONAL_IE_INCORRECT", None),
        ("mac-with-ipv6", lambda ue: binding(ipv6Prefix=ue.ipv6, macAddr48=ue.mac), "OPTIONAL_IE_INCORRECT", None),
        ("add-macs-with-ipv4", lambda ue: binding(ipv4Addr=ue.ipv4, addMacAddrs=[ue.mac]),
         "OPTIONAL_IE_INCORRECT", None),
        # assumed: "addIpv6Prefixes needs ipv6Prefix" is a combination rule like the others
        ("add-prefixes-without-prefix", lambda ue: binding(ipv4Addr=ue.ipv4, addIpv6Prefixes=[ue.ipv6]),
         "OPTIONAL_IE_INCORRECT", None),
        # step 3 (types) comes before step 4 (mandatory members)
        ("bad-optional-before-missing-dnn", lambda ue: binding(ipv4Addr=ue.ipv4, dnn=None, supi=7),
         "OPTIONAL_IE_INCORRECT", "/supi"),
    ]


@pytest.mark.parametrize("name, build, cause, param", _rule_cases(), ids=[c[0] for c in _rule_cases()])
def test_register_rules(bsfd, client, name, build, cause, param):
    ue = Ue()
    before = bsfd.count()
    assert_problem(post_binding(client, build(ue)), 400, cause, param)
    assert bsfd.count() == before
    for query in ({"ipv4Addr": ue.ipv4}, {"ipv6Prefix": ue.ipv6_addr}, {"macAddr48": ue.mac}):
        assert_not_found(client, **query)


def test_api_root_setting_is_used_in_location(bsfd_factory):
    server = bsfd_factory({"sbi.api_root": "http://bsf.example.com:8080"})
    ue = Ue()
    resp = post_binding(server.client, binding(ipv4Addr=ue.ipv4))
    assert_binding(resp, 201)
    location = resp.headers["location"]
    assert re.fullmatch(r"http://bsf\.example\.com:8080/nbsf-management/v1/pcfBindings/[0-9a-f]{32}",
                        location), location
    binding_id = location.rsplit("/", 1)[1]
    assert_binding(patch(server.client, binding_id, {}), 200)
    assert delete(server.client, binding_id).status_code == 204
