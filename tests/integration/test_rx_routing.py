"""Rx gateway, AAR-I routing by binding: found / not found, the proxy's marks on the forwarded
request and on the relayed answer, IPv6 and IP domain, the realm rules of seed 3.12 and the PCF
cookie of seed 3.3. Real af_peer / pcf_peer processes around a real bsfd."""

import json

from rx_support import AF_ID, BSF_ID, RX_APP, metric, rx_lab  # noqa: F401 (fixture)
from support import Ue, assert_not_found, discover

COOKIE_CODE, COOKIE_VENDOR = 3001, 21274


def test_aar_i_found_is_proxied_to_the_bindings_pcf(rx_lab):
    lab = rx_lab(pcfs=("pcf1.test.local", "pcf2.test.local"))
    ue = Ue()
    lab.register(ue, pcf="pcf2.test.local")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["status"] == "answer" and reply["code"] == 2001, reply
    sid = reply["session_id"]
    aaa = reply["record"]
    # The answer is the PCF's, relayed: its Origin-Host, the AF's End-to-End id.
    assert aaa["origin_host"] == "pcf2.test.local", aaa
    assert aaa["e2e"] == reply["e2e"] and aaa["flags"] == "P", aaa
    # The relayed answer carries no Route-Record (libfdcore adds one on reception, pitfall 3).
    assert aaa["route_record"] == [], aaa
    assert lab.pcf("pcf1.test.local").received(sid) == []
    (aar,) = lab.pcf("pcf2.test.local").received(sid, "aar-i")
    # RFC 6733 proxy: same End-to-End id, new hop, Route-Record of the AF, the AF as origin.
    assert aar["e2e"] == reply["e2e"], aar
    assert aar["peer"] == BSF_ID and aar["origin_host"] == AF_ID, aar
    assert aar["route_record"] == [AF_ID], aar
    assert aar["destination_host"] == "pcf2.test.local", aar
    assert aar["destination_realm"] == lab.realm, aar
    assert aar["framed_ip"] == ue.ipv4 and aar["app"] == RX_APP and aar["flags"] == "RP", aar
    assert metric(lab.bsfd, "ocbsf_diam_binding_lookup_total", result="found") == 1
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="AAR-I",
                  retry="false") == 1
    assert metric(lab.bsfd, "ocbsf_diam_response_network_total", msg_type="AAR-I",
                  result_code="2001", retry="false") == 1
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 1
    assert lab.pending() == 0


def test_aar_i_not_found_gets_5065_without_reaching_a_pcf(rx_lab):
    lab = rx_lab()
    ue = Ue()
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 5065, reply
    aaa = reply["record"]
    assert aaa["experimental_result"] == {"vendor_id": 10415, "code": 5065}, aaa
    assert "result_code" not in aaa and aaa["origin_host"] == BSF_ID, aaa
    assert aaa["auth_application_id"] == RX_APP and aaa["session_id"] == reply["session_id"], aaa
    assert lab.pcf().events(type="recv") == []
    assert metric(lab.bsfd, "ocbsf_diam_response_local_total", msg_type="AAR-I",
                  result_code="5065") == 1
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0


def test_deregistered_binding_is_not_found_any_more(rx_lab):
    lab = rx_lab()
    ue = Ue()
    binding_id = lab.register(ue)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    assert lab.bsfd.client.delete(f"/pcfBindings/{binding_id}").status_code == 204
    assert lab.aar_i(ip=ue.ipv4)["code"] == 5065


def test_ipv6_address_finds_the_binding_of_its_prefix(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue, ipv4Addr=None, ipv6Prefix=ue.ipv6)
    reply = lab.af.cmd(f"aar-i ipv6={ue.ipv6_addr}")
    assert reply["code"] == 2001, reply
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert aar["framed_ipv6_prefix"] == ue.ipv6_addr.replace("::1/128", "::1/128"), aar
    # the compact RFC 3162 form (only the prefix octets) works too
    assert lab.af.cmd(f"aar-i ipv6={ue.ipv6} v6-compact")["code"] == 2001
    other = Ue()
    assert lab.af.cmd(f"aar-i ipv6={other.ipv6}")["code"] == 5065


def test_ip_domain_and_dnn_narrow_the_lookup(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue, ipDomain="dom-a", dnn="ims")
    assert lab.aar_i(ip=ue.ipv4, ip_domain="dom-a")["code"] == 2001
    assert lab.aar_i(ip=ue.ipv4, ip_domain="dom-b")["code"] == 5065
    assert lab.aar_i(ip=ue.ipv4, ip_domain="dom-a", called_station="ims")["code"] == 2001
    assert lab.aar_i(ip=ue.ipv4, ip_domain="dom-a", called_station="internet")["code"] == 5065


def test_validate_realm_refuses_another_realm_before_any_lookup(rx_lab):
    lab = rx_lab(settings={"diameter.validate_realm": "true"})
    ue = Ue()
    lab.register(ue)
    reply = lab.aar_i(ip=ue.ipv4, dest_realm="other.example")
    assert reply["code"] == 3003, reply
    assert "E" in reply["record"]["flags"], reply["record"]
    assert metric(lab.bsfd, "ocbsf_diam_realm_validation_failed_total", check="realm") == 1
    assert metric(lab.bsfd, "ocbsf_diam_binding_lookup_total", result="found") == 0
    assert lab.pcf().events(type="recv") == []
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001  # our realm


def test_validate_binding_realm_and_overwrite(rx_lab):
    lab = rx_lab(settings={"diameter.validate_binding_realm": "true"})
    ue, other = Ue(), Ue()
    lab.register(ue)                                    # pcfDiamRealm test.local
    lab.register(other, pcfDiamRealm="pcf.example")     # another realm
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    reply = lab.aar_i(ip=other.ipv4)
    assert reply["code"] == 3003, reply
    assert metric(lab.bsfd, "ocbsf_diam_realm_validation_failed_total",
                  check="binding_realm") == 1


def test_overwrite_realm_puts_the_bindings_realm_in_the_forwarded_aar(rx_lab):
    lab = rx_lab(settings={"diameter.overwrite_realm": "true"})
    ue = Ue()
    lab.register(ue, pcfDiamRealm="pcf.example")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert aar["destination_realm"] == "pcf.example", aar
    assert aar["destination_host"] == "pcf1.test.local", aar


def test_without_overwrite_the_destination_realm_is_kept(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue, pcfDiamRealm="pcf.example")
    reply = lab.aar_i(ip=ue.ipv4)
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert aar["destination_realm"] == lab.realm, aar


def cookie_avps(aar):
    return [a for a in aar["avps"] if a == {"code": COOKIE_CODE, "vendor": COOKIE_VENDOR}]


def test_pcf_cookie_goes_to_the_pcf_in_an_ocnf_service_cookie_avp(rx_lab):
    lab = rx_lab(settings={"bindings.pcf_cookie": "true"})
    ue, plain = Ue(), Ue()
    cookie = json.dumps({"cookieOwner": "PCF-SM", "cookieData": {"SmPolicyAssociationId": "sm-42"}})
    lab.register(ue, headers={"ocnf-service-cookie": cookie})
    lab.register(plain)
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert len(cookie_avps(aar)) == 1, aar["avps"]
    assert aar["ocnf_service_cookie"] == cookie, aar  # the header's bytes, as an OctetString
    assert metric(lab.bsfd, "ocbsf_ocnf_service_cookie_total") == 1
    # a binding registered without the header: no AVP
    reply = lab.aar_i(ip=plain.ipv4)
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert cookie_avps(aar) == [], aar["avps"]


def test_no_cookie_avp_when_the_feature_is_off(rx_lab):
    lab = rx_lab(settings={"bindings.pcf_cookie": "false"})
    ue = Ue()
    lab.register(ue, headers={"ocnf-service-cookie": '{"cookieOwner":"PCF-SM"}'})
    reply = lab.aar_i(ip=ue.ipv4)
    (aar,) = lab.pcf().received(reply["session_id"], "aar-i")
    assert cookie_avps(aar) == [], aar["avps"]
    assert metric(lab.bsfd, "ocbsf_ocnf_service_cookie_total") == 0


def test_binding_without_diameter_host_is_routed_by_the_routing_table(rx_lab):
    lab = rx_lab(settings={"diameter.routes": "realm=test.local peer=pcf1.test.local"})
    ue = Ue()
    lab.register(ue, pcfDiamHost=None, pcfDiamRealm=None)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    assert_not_found(lab.bsfd.client, ipv4Addr=Ue().ipv4)
    assert discover(lab.bsfd.client, ipv4Addr=ue.ipv4).status_code == 200


def test_ipv6_aar_goes_to_the_pcf_of_the_most_specific_prefix(rx_lab):
    """A /32 of one PCF does not take the AAR-Is of a UE whose /64 another PCF registered,
    whichever was registered last (longest-prefix match, as for SBI discovery)."""
    lab = rx_lab(pcfs=("pcf1.test.local", "pcf2.test.local"))
    ue, wide_ue = Ue(), Ue()
    specific = f"3fff:{ue.n:x}:1:2::/64"
    lab.register(ue, pcf="pcf1.test.local", ipv4Addr=None, ipv6Prefix=specific)
    lab.register(wide_ue, pcf="pcf2.test.local", ipv4Addr=None,
                 ipv6Prefix=f"3fff:{ue.n:x}::/32")
    reply = lab.af.cmd(f"aar-i ipv6=3fff:{ue.n:x}:1:2::77/128")
    assert reply["code"] == 2001, reply
    assert reply["record"]["origin_host"] == "pcf1.test.local", reply
    assert lab.pcf("pcf2.test.local").received(reply["session_id"]) == []
    # the prefix itself (usual Rx form) and an address outside the /64 but inside the /32
    assert lab.af.cmd(f"aar-i ipv6={specific}")["record"]["origin_host"] == "pcf1.test.local"
    outside = lab.af.cmd(f"aar-i ipv6=3fff:{ue.n:x}:1:3::77/128")
    assert outside["code"] == 2001 and outside["record"]["origin_host"] == "pcf2.test.local"
