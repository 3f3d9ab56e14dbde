"""Supported features: the BSF supports MultiUeAddr (1), BindingUpdate (2) and SamePcf (3),
i.e. "7". A registration's suppFeat becomes the intersection; discovery with supp-feat
leaves out members of features the consumer lacks and answers the intersection."""

import re

import pytest

from support import Ue, assert_binding, binding, found, post_binding, register

MULTI_UE_ADDR = 0x1


def features(value):
    """The feature bits of a SupportedFeatures string ('' means none)."""
    assert isinstance(value, str) and re.fullmatch(r"[0-9A-Fa-f]*", value), value
    return int(value or "0", 16)


@pytest.mark.parametrize("sent, expected", [
    ("7", 7), ("1", 1), ("2", 2), ("4", 4), ("3", 3), ("6", 6),
    ("F", 7), ("f", 7), ("FF", 7), ("0000000F", 7), ("8", 0), ("10", 0), ("0", 0),
])
def test_stored_supp_feat_is_the_intersection(client, sent, expected):
    ue = Ue()
    stored = assert_binding(post_binding(client, binding(ipv4Addr=ue.ipv4, suppFeat=sent)), 201)
    assert "suppFeat" in stored, stored
    assert features(stored["suppFeat"]) == expected
    assert features(found(client, ipv4Addr=ue.ipv4)["suppFeat"]) == expected


def test_no_supp_feat_is_stored_when_none_is_sent(client):
    ue = Ue()
    _, stored = register(client, binding(ipv4Addr=ue.ipv4))
    assert "suppFeat" not in stored
    assert "suppFeat" not in found(client, ipv4Addr=ue.ipv4)


@pytest.mark.parametrize("consumer, keeps_additional", [("7", True), ("1", True), ("6", False),
                                                        ("2", False), ("0", False)])
def test_discovery_leaves_out_members_of_missing_features(client, consumer, keeps_additional):
    ue, extra = Ue(), Ue()
    body = binding(ipv4Addr=ue.ipv4, ipv6Prefix=ue.ipv6, addIpv6Prefixes=[extra.ipv6], suppFeat="7")
    register(client, body)
    answer = found(client, ipv4Addr=ue.ipv4, **{"supp-feat": consumer})
    expected = dict(body)
    if not keeps_additional:
        del expected["addIpv6Prefixes"]
    assert {k: v for k, v in answer.items() if k != "suppFeat"} == \
        {k: v for k, v in expected.items() if k != "suppFeat"}
    assert features(answer["suppFeat"]) == int(consumer, 16) & 7
    assert found(client, ipv4Addr=ue.ipv4) == body


def test_discovery_leaves_out_additional_mac_addresses(client):
    ue, extra = Ue(), Ue()
    body = binding(macAddr48=ue.mac, addMacAddrs=[extra.mac], dnn="ethernet", suppFeat="7")
    register(client, body)
    answer = found(client, macAddr48=ue.mac, **{"supp-feat": "6"})
    assert "addMacAddrs" not in answer
    assert answer["macAddr48"] == ue.mac
    assert features(answer["suppFeat"]) == 6
    assert found(client, macAddr48=ue.mac, **{"supp-feat": "1"})["addMacAddrs"] == [extra.mac]


def test_filtering_applies_to_bindings_without_supp_feat(client):
    ue, extra = Ue(), Ue()
    body = binding(ipv6Prefix=ue.ipv6, addIpv6Prefixes=[extra.ipv6])
    register(client, body)
    answer = found(client, ipv6Prefix=ue.ipv6_addr, **{"supp-feat": "2"})
    assert "addIpv6Prefixes" not in answer
    assert answer["ipv6Prefix"] == ue.ipv6
    assert found(client, ipv6Prefix=ue.ipv6_addr, **{"supp-feat": format(MULTI_UE_ADDR, "x")}
                 )["addIpv6Prefixes"] == [extra.ipv6]
