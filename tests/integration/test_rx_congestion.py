"""Rx gateway, congestion control of the Diameter front end (seed 3.26): the state follows
the requests waiting for an answer, changes only after `sample_count` samples, and out of
NORMAL requests are discarded by priority with the configured result code; answers and
important requests pass, and the state comes back to NORMAL."""

from rx_support import metric, rx_lab, wait_until  # noqa: F401 (fixture)
from support import Ue

# DOC from 3 pending requests (the CPU thresholds are out of reach); AARs have priority 20,
# which DOC discards (20 >= 20); STRs keep the default 6.
CONGESTION = {
    "diameter.congestion.enabled": "true",
    "diameter.congestion.interval_ms": "50",
    "diameter.congestion.sample_count": "3",
    "diameter.congestion.queue_thresholds": "3;100;200;300",
    "diameter.congestion.cpu_thresholds": "97;98;99;100",
    "diameter.congestion.discard_priorities": "20;19;17;15",
    "diameter.congestion.priorities": "default=6;aar=20",
    "diameter.timeout_aar_ms": "20000",
}


def state(lab):
    return metric(lab.bsfd, "ocbsf_diam_congestion_state")


def release(lab):
    """Ends the held requests (the PCF goes: the BSF answers them 3002), so that no request is
    pending when the lab stops."""
    lab.pcf().kill()
    wait_until(lambda: lab.pending() == 0, what="nothing pending")


def congest(lab, ues):
    """Holds one unanswered AAR-I per UE at the PCF until bsfd is in DOC."""
    lab.hold_aar_is(ues)
    wait_until(lambda: state(lab) == 1, what="the DOC state")


def congested_lab(rx_lab, n_ues, **settings):
    """A lab with CONGESTION (and `settings`), n_ues registered UEs, the first 3 of them held
    at the PCF so that bsfd is in DOC."""
    lab = rx_lab(settings={**CONGESTION, **settings})
    ues = [Ue() for _ in range(n_ues)]
    for ue in ues:
        lab.register(ue)
    congest(lab, ues[:3])
    return lab, ues


def test_doc_discards_by_priority_and_ends(rx_lab):
    lab = rx_lab(settings=CONGESTION)
    ues = [Ue() for _ in range(5)]
    for ue in ues:
        lab.register(ue)
    sid = lab.aar_i(ip=ues[0].ipv4)["session_id"]  # a session opened before the congestion
    assert state(lab) == 0
    congest(lab, ues[1:4])
    # an AAR (priority 20) is discarded by the BSF with 3004 and never reaches the PCF
    seen = len(lab.pcf().events(type="recv"))
    reply = lab.aar_i(ip=ues[4].ipv4)
    assert reply["status"] == "answer" and reply["code"] == 3004, reply
    assert reply["record"]["origin_host"] == "bsf.test.local", reply
    assert len(lab.pcf().events(type="recv")) == seen
    # an STR (priority 6) passes to the PCF and its answer comes back
    reply = lab.af.cmd(f"str session={sid}")
    assert reply["code"] == 2001, reply
    assert len(lab.pcf().received(sid, "str")) == 1
    assert metric(lab.bsfd, "ocbsf_diam_congestion_discards_total", state="DOC") == 1
    assert metric(lab.bsfd, "ocbsf_diam_congestion_resource_state", resource="queue") == 1
    assert "congestion state DOC" in lab.bsfd.stderr_text()
    # the held AAR-Is are answered: back to NORMAL
    release(lab)
    wait_until(lambda: state(lab) == 0, what="the NORMAL state")
    assert "congestion state NORMAL" in lab.bsfd.stderr_text()


def test_discards_answered_with_the_configured_experimental_result(rx_lab):
    lab, ues = congested_lab(rx_lab, 4, **{"diameter.congestion.result_code": "5065",
                                           "diameter.congestion.vendor_id": "10415"})
    reply = lab.aar_i(ip=ues[3].ipv4)
    assert reply["code"] == 5065, reply
    record = reply["record"]
    assert record["experimental_result"] == {"vendor_id": 10415, "code": 5065}, record
    assert record.get("result_code") is None, record
    release(lab)


def test_without_congestion_control_nothing_is_discarded(rx_lab):
    settings = {k: v for k, v in CONGESTION.items() if k != "diameter.congestion.enabled"}
    lab = rx_lab(settings=settings)
    ues = [Ue() for _ in range(5)]
    for ue in ues:
        lab.register(ue)
    lab.hold_aar_is(ues[:4])
    assert lab.aar_i(ip=ues[4].ipv4)["code"] == 2001
    assert "ocbsf_diam_congestion_state" not in lab.bsfd.ops.get("/metrics").text
    release(lab)


def test_priority_avps_decide_which_requests_are_discarded(rx_lab):
    """Seed acceptance 2 and 5: a request's OC-Message-Priority (at its configured code) wins
    over its DRMP, which wins over the command's priority."""
    lab, ues = congested_lab(rx_lab, 6, **{"diameter.congestion.oc_priority_avp_code": "3020",
                                           "diameter.congestion.oc_priority_avp_vendor": "21274"})
    # the command's priority (aar=20) is discarded in DOC (discard priority 20) ...
    assert lab.aar_i(ip=ues[3].ipv4)["code"] == 3004
    # ... an OC-Message-Priority of 19 passes, one of 20 does not
    assert lab.aar_i(ip=ues[3].ipv4, oc_priority=19)["code"] == 2001
    assert lab.aar_i(ip=ues[4].ipv4, oc_priority=20)["code"] == 3004
    # DRMP 2 alone passes; with OC-Message-Priority 30 the latter decides
    assert lab.aar_i(ip=ues[4].ipv4, drmp=2)["code"] == 2001
    assert lab.aar_i(ip=ues[5].ipv4, drmp=2, oc_priority=30)["code"] == 3004
    assert metric(lab.bsfd, "ocbsf_diam_congestion_discards_total", state="DOC") == 3
    release(lab)


def test_a_priority_profile_rule_gives_the_priority(rx_lab):
    """The message priority profile: the first rule a request matches (command, AAR-I or AAR-U,
    comparisons on its OC-Message-Priority and DRMP) gives its priority; a request no rule
    matches keeps its AVPs' and its command's."""
    rules = ("cmd=aar oc>=10 oc<=12 priority=31;drmp<=1 priority=0;cmd=aar-u priority=0;"
             "cmd=str priority=25")
    lab, ues = congested_lab(rx_lab, 6, **{"diameter.congestion.oc_priority_avp_code": "3020",
                                           "diameter.congestion.oc_priority_avp_vendor": "21274",
                                           "diameter.congestion.priority_rules": rules})
    # OC 11 alone would pass (11 < 20): the first rule makes it 31, discarded
    assert lab.aar_i(ip=ues[3].ipv4, oc_priority=11)["code"] == 3004
    # OC 13 matches no rule: its own value passes
    assert lab.aar_i(ip=ues[3].ipv4, oc_priority=13)["code"] == 2001
    # the command's priority (aar=20) is discarded, but a DRMP of 1 makes it 0
    assert lab.aar_i(ip=ues[4].ipv4)["code"] == 3004
    sid = lab.aar_i(ip=ues[4].ipv4, drmp=1)
    assert sid["code"] == 2001
    # an AAR-U of that session is 0 by the third rule (an AAR-I is the command's 20)
    assert lab.af.cmd(f"aar-u session={sid['session_id']}")["code"] == 2001
    # STRs are 6 by default; the third rule makes them 25: discarded by the BSF
    reply = lab.af.cmd(f"str session={sid['session_id']}")
    assert reply["code"] == 3004 and reply["record"]["origin_host"] == "bsf.test.local", reply
    assert metric(lab.bsfd, "ocbsf_diam_congestion_discards_total", state="DOC") == 3
    release(lab)



def test_thresholds_change_at_run_time(rx_lab):
    """diameter.congestion.cpu_thresholds / queue_thresholds are runtime keys (issue 15 §2):
    a PATCH of the configuration moves the state with the same requests pending, an invalid
    list is refused naming the key and nothing changes."""
    path = "/oc-bsf-configuration/v1/configuration"
    merge = {"content-type": "application/merge-patch+json"}
    lab = rx_lab(settings={**CONGESTION, "diameter.congestion.queue_thresholds": "50;100;200;300"})
    ues = [Ue() for _ in range(3)]
    for ue in ues:
        lab.register(ue)
    lab.hold_aar_is(ues)
    wait_until(lambda: lab.pending() == 3, what="three AAR-Is pending")
    admin = lab.bsfd.admin

    def set_queue(levels, status=200):
        resp = admin.patch(path, json={"diameter": {"congestion": {"queue_thresholds": levels}}},
                           headers=merge)
        assert resp.status_code == status, resp.text
        return resp.json()

    assert state(lab) == 0
    set_queue(["3", "100", "200", "300"])
    wait_until(lambda: state(lab) == 1, what="DOC after the PATCH")
    body = set_queue(["9", "8", "7", "6"], status=400)
    assert "diameter.congestion.queue_thresholds" in body["detail"], body
    got = admin.get(path).json()["diameter"]["congestion"]["queue_thresholds"]
    assert got == ["3", "100", "200", "300"], got
    set_queue(["1", "2", "3", "300"])
    wait_until(lambda: state(lab) == 3, what="L2 with 3 pending")
    set_queue(["50", "100", "200", "300"])
    wait_until(lambda: state(lab) == 0, what="NORMAL after the PATCH back")
    assert "diameter.congestion.queue_thresholds" in lab.bsfd.stderr_text()
    release(lab)
