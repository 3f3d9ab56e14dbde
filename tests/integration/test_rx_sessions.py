"""Rx gateway, sessions: AAR-U and STR follow the session to the PCF of its AAR-I, RAR and ASR
from the PCF reach the AF, STA ends a session, the table is bounded and forgets idle sessions."""

from rx_support import AF_ID, BSF_ID, metric, rx_lab, wait_until  # noqa: F401 (fixture)
from support import Ue

PCF1, PCF2 = "pcf1.test.local", "pcf2.test.local"


def test_aar_u_and_str_follow_the_session_to_the_same_pcf(rx_lab):
    lab = rx_lab(pcfs=(PCF1, PCF2))
    ue = Ue()
    lab.register(ue, pcf=PCF2)
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    # AAR-U carries no UE address and no Destination-Host: only the session tells the PCF.
    reply = lab.af.cmd(f"aar-u session={sid}")
    assert reply["code"] == 2001, reply
    assert reply["record"]["origin_host"] == PCF2
    (aar_u,) = lab.pcf(PCF2).received(sid, "aar-u")
    assert aar_u["destination_host"] == PCF2, aar_u  # added by the gateway
    assert "framed_ip" not in aar_u
    # pcf_peer keeps sessions: an STR at the wrong PCF would get 5002
    reply = lab.af.cmd(f"str session={sid}")
    assert reply["code"] == 2001, reply
    assert len(lab.pcf(PCF2).received(sid, "str")) == 1
    assert lab.pcf(PCF1).received(sid) == []
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0
    assert metric(lab.bsfd, "ocbsf_diam_sessions_total", event="closed") == 1
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="AAR-U",
                  retry="false") == 1
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="STR",
                  retry="false") == 1


def test_the_session_stays_with_its_pcf_after_the_binding_moves(rx_lab):
    lab = rx_lab(pcfs=(PCF1, PCF2))
    ue = Ue()
    binding_id = lab.register(ue, pcf=PCF1)
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    assert lab.bsfd.client.delete(f"/pcfBindings/{binding_id}").status_code == 204
    lab.register(ue, pcf=PCF2)
    assert lab.af.cmd(f"aar-u session={sid}")["record"]["origin_host"] == PCF1
    # a new session of the same UE goes to the new binding's PCF
    assert lab.aar_i(ip=ue.ipv4)["record"]["origin_host"] == PCF2


def test_many_sessions_each_stick_to_their_own_pcf(rx_lab):
    lab = rx_lab(pcfs=(PCF1, PCF2))
    sessions = []
    for i in range(10):
        ue = Ue()
        pcf = (PCF1, PCF2)[i % 2]
        lab.register(ue, pcf=pcf)
        sessions.append((lab.aar_i(ip=ue.ipv4)["session_id"], pcf))
    for sid, pcf in sessions:
        assert lab.af.cmd(f"aar-u session={sid}")["record"]["origin_host"] == pcf
    for sid, pcf in reversed(sessions):
        reply = lab.af.cmd(f"str session={sid}")
        assert reply["code"] == 2001 and reply["record"]["origin_host"] == pcf, reply
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0


def test_rar_and_asr_from_the_pcf_reach_the_af(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue)
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    pcf = lab.pcf()
    reply = pcf.cmd(f"rar session={sid} action=4")
    assert reply["status"] == "answer" and reply["code"] == 2001, reply
    raa = reply["record"]
    assert raa["origin_host"] == AF_ID and raa["route_record"] == [], raa
    (rar,) = lab.af.received(sid, "rar")
    assert rar["route_record"] == ["pcf1.test.local"] and rar["peer"] == BSF_ID, rar
    assert rar["e2e"] == reply["e2e"], rar
    # the AF answers an unknown session with 5002: relayed as it is
    assert pcf.cmd(f"rar session=nosuch;1;1 dest-host={AF_ID} dest-realm={lab.realm}")["code"] \
        == 5002
    # ASR, then the AF's STR ends the session
    lab.af.cmd("set auto-str=1")
    reply = pcf.cmd(f"asr session={sid}")
    assert reply["code"] == 2001 and reply["record"]["origin_host"] == AF_ID, reply
    wait_until(lambda: pcf.received(sid, "str"), what="the AF's STR after the ASR")
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_sessions") == 0, what="the session to end")
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="RAR", retry="false") == 2
    assert metric(lab.bsfd, "ocbsf_diam_response_network_total", msg_type="ASR", result_code="2001",
                  retry="false") == 1


def test_the_session_table_is_bounded(rx_lab):
    lab = rx_lab(settings={"diameter.max_sessions": "2"})
    ues = [Ue() for _ in range(3)]
    for ue in ues:
        lab.register(ue)
    first = lab.aar_i(ip=ues[0].ipv4)["session_id"]
    assert lab.aar_i(ip=ues[1].ipv4)["code"] == 2001
    reply = lab.aar_i(ip=ues[2].ipv4)
    assert reply["code"] == 3004, reply  # DIAMETER_TOO_BUSY
    assert lab.pcf().received(reply["session_id"]) == []
    assert metric(lab.bsfd, "ocbsf_diam_sessions_total", event="refused") == 1
    assert lab.af.cmd(f"str session={first}")["code"] == 2001
    assert lab.aar_i(ip=ues[2].ipv4)["code"] == 2001


def test_a_failed_aar_i_leaves_no_session(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue)
    lab.pcf().cmd("answer cmd=aar-i exp=5063 count=1")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 5063, reply
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0
    # the same Session-Id may open again
    assert lab.af.cmd(f"aar-i ip={ue.ipv4} sid={reply['session_id']}")["code"] == 2001
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 1


def test_idle_sessions_are_forgotten(rx_lab):
    lab = rx_lab(settings={"diameter.session_idle_s": "2"})
    ue = Ue()
    lab.register(ue)
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 1
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_sessions_total", event="expired") == 1,
               timeout=10, what="the idle session to expire")
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0
    # Unknown now: without Destination-Host nor a route, the AAR-U cannot be delivered.
    reply = lab.af.cmd(f"aar-u session={sid} rx-type=1")
    assert reply["code"] == 3002, reply
    # ... with Destination-Host naming the PCF it is routed there.
    assert lab.af.cmd(f"aar-u session={sid} rx-type=1 dest-host=pcf1.test.local")["code"] == 2001
