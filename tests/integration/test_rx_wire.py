"""Rx gateway, checked by an independent decoder: the messages between bsfd and a PCF are
recorded by a relay and decoded by Wireshark's Diameter dissector (tshark, a Debian package),
so our encoding (the proxied AAR with its Route-Record, Destination-Host and
OCNF-SERVICE-COOKIE, the relayed answers, CER/CEA, DWR/DWA and DPR/DPA at shutdown) is read by
someone else's code."""

import json
import socket

from rx_support import AF_ID, BSF_ID, RX_APP, rx_lab, tshark_decode, wait_until  # noqa: F401
from support import Ue

FIELDS = ["diameter.cmd.code", "diameter.flags.request", "diameter.applicationId",
          "diameter.endtoendid", "diameter.Session-Id", "diameter.Origin-Host",
          "diameter.Destination-Host", "diameter.Destination-Realm", "diameter.Route-Record",
          "diameter.Framed-IP-Address", "diameter.Result-Code", "diameter.avp.code",
          "diameter.avp.vendorId", "diameter.avp.unknown", "diameter.Vendor-Id",
          "diameter.Product-Name", "_ws.expert.message", "_ws.malformed"]
# Wireshark does not know OCNF-SERVICE-COOKIE (vendor 21274): the only warnings allowed.
KNOWN_WARNINGS = ("Unknown AVP 3001", "Unknown Vendor")


def test_the_gateways_traffic_decodes_in_wireshark(rx_lab):
    lab = rx_lab(capture="pcf1.test.local",
                 settings={"bindings.pcf_cookie": "true", "diameter.vendor_id": "32473"})
    ue = Ue()
    cookie = json.dumps({"cookieOwner": "PCF-SM", "cookieData": {"SmPolicyAssociationId": "x1"}})
    lab.register(ue, headers={"ocnf-service-cookie": cookie})
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    sid = reply["session_id"]
    assert lab.pcf().cmd(f"rar session={sid}")["code"] == 2001
    assert lab.af.cmd(f"str session={sid}")["code"] == 2001
    lab.bsfd.stop()  # DPR / DPA
    wait_until(lambda: any(r["diameter.cmd.code"] == ["282"] for r in
                           tshark_decode(lab.relay.pcap_path, FIELDS)), what="DPR/DPA recorded")
    rows = tshark_decode(lab.relay.pcap_path, FIELDS)
    assert all(r["_ws.malformed"] == [] for r in rows), rows
    for r in rows:
        unexpected = [m for m in r["_ws.expert.message"] if not m.startswith(KNOWN_WARNINGS)]
        assert unexpected == [], r
    by = {}
    for r in rows:
        by.setdefault((r["diameter.cmd.code"][0], r["diameter.flags.request"][0]), []).append(r)
    # capabilities exchange, then (at stop) the disconnect, both answered
    assert ("257", "1") in by and ("257", "0") in by, sorted(by)
    (cer,) = by[("257", "1")]  # ours: the BSF's identity, not libfdcore's
    assert cer["diameter.Product-Name"] == ["bsf"], cer
    assert cer["diameter.Vendor-Id"][0] == "32473", cer
    (dpr,) = by[("282", "1")]
    assert dpr["diameter.Origin-Host"] == [BSF_ID], dpr
    assert ("282", "0") in by, sorted(by)
    # the proxied AAR as the PCF got it
    (aar,) = by[("265", "1")]
    assert aar["diameter.applicationId"] == [str(RX_APP)], aar
    assert aar["diameter.Session-Id"] == [sid], aar
    assert aar["diameter.Origin-Host"] == [AF_ID], aar
    assert aar["diameter.Destination-Host"] == ["pcf1.test.local"], aar
    assert aar["diameter.Route-Record"] == [AF_ID], aar
    assert aar["diameter.Framed-IP-Address"] == [socket.inet_aton(ue.ipv4).hex()], aar
    assert int(aar["diameter.endtoendid"][0], 0) == reply["e2e"], aar
    assert "3001" in aar["diameter.avp.code"], aar   # OCNF-SERVICE-COOKIE, vendor 21274
    assert "21274" in aar["diameter.avp.vendorId"], aar
    assert aar["diameter.avp.unknown"] == [cookie.encode().hex()], aar  # its bytes, as sent
    (aaa,) = by[("265", "0")]
    assert aaa["diameter.Result-Code"] == ["2001"], aaa
    assert aaa["diameter.Route-Record"] == [], aaa
    # RAR from the PCF, STR from the AF, and their answers
    assert len(by[("258", "1")]) == 1 and len(by[("258", "0")]) == 1
    (str_,) = by[("275", "1")]
    assert str_["diameter.Route-Record"] == [AF_ID], str_
    assert by[("275", "0")][0]["diameter.Result-Code"] == ["2001"]
