"""SamePcf: a registration with paraCom is refused with 403 EXISTING_BINDING_INFO_FOUND
(ExtProblemDetails naming the existing PCF for SM policy) when a live binding matches every
member present in paraCom. Nothing is stored then."""

import pytest

from support import (Ue, assert_no_content, assert_not_found, assert_problem, binding, delete,
                     found, new_pcf_id, post_binding, register)

SM_FQDN = "pcf-sm-1.example.com"
SM_ENDPOINTS = [{"ipv4Address": "192.0.2.31", "port": 8080, "transport": "TCP"}]


def existing(ue):
    """The binding already in the BSF for (supi, dnn, snssai) of `ue`."""
    return binding(ipv4Addr=ue.ipv4, supi=ue.supi, dnn=ue.dnn, snssai={"sst": 1, "sd": "0000EE"},
                   pcfId=new_pcf_id(), pcfSmFqdn=SM_FQDN, pcfSmIpEndPoints=SM_ENDPOINTS)


def newcomer(ue, other, para_com):
    """Another PDU session of the same UE (other address) asking for the same PCF."""
    return binding(ipv4Addr=other.ipv4, supi=ue.supi, dnn=ue.dnn, snssai={"sst": 1, "sd": "0000EE"},
                   pcfId=new_pcf_id(), paraCom=para_com)


@pytest.mark.parametrize("members", [("supi", "dnn", "snssai"), ("supi",), ("dnn", "snssai"), ("dnn",)])
def test_matching_para_com_is_refused_with_the_existing_pcf(bsfd, client, members):
    ue, other = Ue(), Ue()
    first = existing(ue)
    register(client, first)
    para_com = {name: first[name] for name in members}
    count = bsfd.count()
    resp = post_binding(client, newcomer(ue, other, para_com))
    body = assert_problem(resp, 403, "EXISTING_BINDING_INFO_FOUND", schema="ExtProblemDetails")
    assert body.get("pcfSmFqdn") == SM_FQDN, body
    assert body.get("pcfSmIpEndPoints") == SM_ENDPOINTS, body
    assert bsfd.count() == count
    assert_not_found(client, ipv4Addr=other.ipv4)
    assert found(client, ipv4Addr=ue.ipv4) == first


@pytest.mark.parametrize("mismatch", ["supi", "dnn", "snssai"])
def test_para_com_without_a_match_is_registered(client, mismatch):
    ue, other, stranger = Ue(), Ue(), Ue()
    first = existing(ue)
    register(client, first)
    para_com = {"supi": first["supi"], "dnn": first["dnn"], "snssai": first["snssai"]}
    para_com[mismatch] = {"supi": stranger.supi, "dnn": stranger.dnn, "snssai": {"sst": 1, "sd": "0000EF"}}[mismatch]
    body = newcomer(ue, other, para_com)
    _, stored = register(client, body)
    assert stored == body
    assert found(client, ipv4Addr=other.ipv4) == body


def test_only_live_bindings_count(client):
    ue, other = Ue(), Ue()
    first = existing(ue)
    first_id, _ = register(client, first)
    assert_no_content(delete(client, first_id))
    body = newcomer(ue, other, {"supi": ue.supi, "dnn": ue.dnn})
    _, stored = register(client, body)
    assert stored == body


def test_without_para_com_there_is_no_same_pcf_check(client):
    ue, other = Ue(), Ue()
    register(client, existing(ue))
    body = newcomer(ue, other, None)
    _, stored = register(client, body)
    assert stored == body
