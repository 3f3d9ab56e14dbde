"""Rx gateway, failure handling: answer timeouts (seed 3.22), session retry to an alternate
peer with and without cycle-back (seed 3.15), the stale-binding signal (seed 3.34), malformed
requests, peers that disconnect and come back, and configuration errors."""

import json
import time

import pytest

from conftest import refused_at_start
from rx_support import metric, peer_up, rx_lab, wait_until  # noqa: F401 (fixture)
from support import Ue, assert_not_found

PCF1, PCF2 = "pcf1.test.local", "pcf2.test.local"
ROUTES = f"realm=test.local peer={PCF1} priority=1;realm=test.local peer={PCF2} priority=2"


# ---- timeouts ------------------------------------------------------------------------------

def test_unanswered_requests_time_out_per_command(rx_lab):
    lab = rx_lab(settings={"diameter.timeout_ms": "4000", "diameter.timeout_aar_ms": "3000"})
    ue = lab.registered_ue()
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    lab.pcf().cmd("answer cmd=all drop")
    reply = lab.af.cmd(f"aar-u session={sid}")
    assert reply["status"] == "answer" and reply["code"] == 3002, reply
    assert 2900 <= reply["latency_ms"] <= 5000, reply          # message level: AAR 3000 ms
    assert reply["record"]["origin_host"] == "bsf.test.local"
    reply = lab.af.cmd(f"str session={sid}")
    assert reply["code"] == 3002, reply
    assert 3900 <= reply["latency_ms"] <= 6000, reply          # interface level: 4000 ms
    assert metric(lab.bsfd, "ocbsf_diam_timeout_total", msg_type="AAR-U") == 1
    assert metric(lab.bsfd, "ocbsf_diam_timeout_total", msg_type="STR") == 1
    assert lab.pending() == 0                                 # nothing left pending
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_sessions") == 0,
               what="the session to end")                    # STR ended it anyway
    lab.pcf().cmd("answer reset")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001


def test_a_late_answer_after_the_timeout_is_dropped(rx_lab):
    lab = rx_lab(settings={"diameter.timeout_ms": "3000"})
    ue = lab.registered_ue()
    lab.pcf().cmd("answer cmd=aar-i ok delay=3600 count=1")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 3002, reply
    # The PCF's answer comes 600 ms later; the AF must not get a second one. (The peer
    # records the answer when it schedules it: wait for the delay to pass too.)
    wait_until(lambda: lab.pcf().events(type="sent_answer"), what="the PCF's late answer")
    time.sleep(1.0)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    assert [r for r in lab.af.events(type="recv") if r.get("session_id") == reply["session_id"]
            and not r.get("request") and r.get("label") is None] == []
    assert lab.pending() == 0


# ---- retries -------------------------------------------------------------------------------

def retry_lab(rx_lab, **extra):
    settings = {"diameter.routes": ROUTES, "diameter.retry": "aar;str",
                "diameter.update_destination_host": "true", "diameter.stale_binding_codes": ""}
    settings.update(extra)
    return rx_lab(pcfs=(PCF1, PCF2), settings=settings)


def retried_aar_i(rx_lab, answer, told=(PCF1,), **extra):
    """A retry_lab (with `extra` settings) whose PCFs `told` are given the `answer` command,
    then the AAR-I of a UE bound to PCF1: (lab, the AF's reply)."""
    lab = retry_lab(rx_lab, **extra)
    ue = lab.registered_ue(pcf=PCF1)
    for pcf in told:
        lab.pcf(pcf).cmd(answer)
    return lab, lab.aar_i(ip=ue.ipv4)


def test_retry_to_the_alternate_peer_on_a_configured_code(rx_lab):
    lab, reply = retried_aar_i(rx_lab, "answer cmd=aar-i rc=3004 count=1")
    assert reply["code"] == 2001 and reply["record"]["origin_host"] == PCF2, reply
    sid = reply["session_id"]
    (first,) = lab.pcf(PCF1).received(sid)
    (second,) = lab.pcf(PCF2).received(sid)
    assert second["e2e"] == first["e2e"] == reply["e2e"]     # the same request
    assert second["destination_host"] == PCF2                 # UpdateDestinationHost
    assert "T" in second["flags"], second
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="AAR-I", retry="true",
                  retry_reason="3004") == 1
    assert metric(lab.bsfd, "ocbsf_diam_response_network_total", msg_type="AAR-I",
                  result_code="2001", retry="true") == 1
    # the session now lives at PCF2
    assert lab.af.cmd(f"aar-u session={sid}")["record"]["origin_host"] == PCF2


def test_without_update_destination_host_the_retry_keeps_it(rx_lab):
    lab, reply = retried_aar_i(rx_lab, "answer cmd=aar-i rc=3004 count=1",
                               **{"diameter.update_destination_host": "false"})
    # PCF2 is not the Destination-Host and relays nothing: 3002 from it is the last error
    assert reply["code"] == 3002 and reply["record"]["origin_host"] == PCF2, reply
    assert lab.pcf(PCF2).events(type="recv") == []  # libfdcore refused it before the app


def test_no_retry_without_cycle_back_once_every_peer_was_tried(rx_lab):
    lab, reply = retried_aar_i(rx_lab, "answer cmd=aar-i rc=3004", told=(PCF1, PCF2),
                               **{"diameter.max_retries": "2"})
    assert reply["code"] == 3004 and reply["record"]["origin_host"] == PCF2, reply
    assert len(lab.pcf(PCF1).received(reply["session_id"])) == 1
    assert len(lab.pcf(PCF2).received(reply["session_id"])) == 1
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0


def test_cycle_back_retries_the_first_peer_again(rx_lab):
    lab, reply = retried_aar_i(rx_lab, "answer cmd=aar-i rc=3004", told=(PCF1, PCF2),
                               **{"diameter.max_retries": "2", "diameter.cycle_back": "true"})
    assert reply["code"] == 3004 and reply["record"]["origin_host"] == PCF1, reply
    assert len(lab.pcf(PCF1).received(reply["session_id"])) == 2
    assert len(lab.pcf(PCF2).received(reply["session_id"])) == 1
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="AAR-I", retry="true",
                  retry_reason="3004") == 2


def test_retry_on_timeout(rx_lab):
    lab, reply = retried_aar_i(rx_lab, "answer cmd=aar-i drop count=1",
                               **{"diameter.timeout_ms": "3000"})
    assert reply["code"] == 2001 and reply["record"]["origin_host"] == PCF2, reply
    assert reply["latency_ms"] >= 2900, reply
    assert metric(lab.bsfd, "ocbsf_diam_request_network_total", msg_type="AAR-I", retry="true",
                  retry_reason="timeout") == 1
    assert lab.pending() == 0


def test_codes_outside_the_patterns_and_commands_without_retry_are_relayed(rx_lab):
    lab = retry_lab(rx_lab, **{"diameter.retry_codes": "3004", "diameter.retry": "aar"})
    ue = lab.registered_ue(pcf=PCF1)
    lab.pcf(PCF1).cmd("answer cmd=aar-i exp=5063 count=1")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 5063
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    lab.pcf(PCF1).cmd("answer cmd=str rc=3004 count=1")  # STR is not in diameter.retry
    assert lab.af.cmd(f"str session={sid}")["code"] == 3004
    assert lab.pcf(PCF2).events(type="recv") == []


def test_no_routing_table_no_retry(rx_lab):
    lab = rx_lab(pcfs=(PCF1, PCF2), settings={"diameter.retry": "aar"})
    ue = lab.registered_ue(pcf=PCF1)
    lab.pcf(PCF1).cmd("answer cmd=aar-i rc=3004 count=1")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 3004
    assert lab.pcf(PCF2).events(type="recv") == []


# ---- stale bindings --------------------------------------------------------------------------

def test_pcf_5012_to_an_aar_i_removes_the_binding(rx_lab):
    lab = rx_lab()
    ue = Ue()
    binding_id = lab.register(ue)
    lab.pcf().cmd("answer cmd=aar-i rc=5012 count=1")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 5012 and reply["record"]["origin_host"] == "pcf1.test.local", reply
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_stale_binding_total", result="removed") == 1,
               what="the stale binding's removal")
    assert_not_found(lab.bsfd.client, ipv4Addr=ue.ipv4)
    events = lab.bsfd.history(binding=binding_id)
    assert [e.get("reason") for e in events if e.get("type") == "BindingDeregistered"] == \
        ["diameter_failure"], events
    assert lab.aar_i(ip=ue.ipv4)["code"] == 5065
    # counted and logged like the audit's removals (issue 12 §1, seed §3.34.1)
    assert metric(lab.bsfd, "bsf_stale_bindings_removed_total", reason="diameter_failure") == 1
    lines = [json.loads(line.split(" stale-binding-deletion: ", 1)[1])
             for line in lab.bsfd.stderr_text().splitlines() if " stale-binding-deletion: " in line]
    assert [(d["reason"], d["bindingId"], d["ipv4Addr"]) for d in lines] == \
        [("Stale Session Notification received from Diameter Gateway", binding_id, "XXXX")], lines


def test_pcf_stale_code_to_an_aar_u_removes_the_sessions_binding(rx_lab):
    lab = rx_lab(settings={"diameter.stale_binding_codes": "5012;5065"})
    ue = lab.registered_ue()
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    lab.pcf().cmd("answer cmd=aar-u exp=5065 count=1")
    assert lab.af.cmd(f"aar-u session={sid}")["code"] == 5065
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_stale_binding_total", result="removed") == 1,
               what="the stale binding's removal")
    assert_not_found(lab.bsfd.client, ipv4Addr=ue.ipv4)


def test_other_error_codes_keep_the_binding(rx_lab):
    lab = rx_lab()
    ue = lab.registered_ue()
    lab.pcf().cmd("answer cmd=aar-i exp=5063 count=1")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 5063
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    assert metric(lab.bsfd, "ocbsf_diam_stale_binding_total", result="requested") == 0


# ---- malformed requests ----------------------------------------------------------------------

@pytest.mark.parametrize("kind, args, code, failed", [
    ("no-session", "", 5005, {"code": 263, "vendor": 0}),       # answered by libfdcore
    ("no-framed", "", 5005, {"code": 8, "vendor": 0}),
    ("unknown-app", "", 3007, None),
    ("app-avp-mismatch", "app=16777238", 5004, {"code": 258, "vendor": 0}),
    ("ip-len", "len=3", 5014, {"code": 8, "vendor": 0}),
    ("ip-len", "len=16", 5014, {"code": 8, "vendor": 0}),
])
def test_malformed_requests_get_the_proper_result_code(rx_lab, kind, args, code, failed):
    lab = rx_lab()
    ue = lab.registered_ue()
    reply = lab.af.cmd(f"bad kind={kind} ip={ue.ipv4} {args}".strip())
    assert reply["status"] == "answer" and reply["code"] == code, reply
    if failed:
        assert failed in reply["record"].get("failed_avp", []), reply["record"]
    assert lab.pcf().events(type="recv") == []
    assert lab.pending() == 0
    assert metric(lab.bsfd, "ocbsf_diam_sessions") == 0
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001  # still serving


def test_malformed_requests_on_the_relayed_path(rx_lab):
    """Requests for another host skip libfdcore's dictionary checks: the gateway's own apply."""
    lab = rx_lab()
    ue = lab.registered_ue()
    reply = lab.af.cmd(f"bad kind=no-session ip={ue.ipv4} dest-host=pcf1.test.local")
    assert reply["code"] == 5005, reply
    reply = lab.af.cmd("aar-u session=unknown;1;1 rx-type=1 dest-host=nosuch.test.local")
    assert reply["code"] == 3002, reply
    assert lab.pending() == 0


# ---- peers that go away ----------------------------------------------------------------------

def test_pcf_disconnect_and_reconnect(rx_lab):
    lab = rx_lab()
    ue = lab.registered_ue()
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    lab.pcf().kill()
    wait_until(lambda: not peer_up(lab.bsfd, "pcf1.test.local"), what="bsfd to see PCF1 go")
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 3002, reply
    lab.start_pcf("pcf1.test.local")
    wait_until(lambda: peer_up(lab.bsfd, "pcf1.test.local"), what="bsfd to reconnect to PCF1")
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001


def test_pcf_that_dies_with_a_request_pending(rx_lab):
    lab = rx_lab(settings={"diameter.timeout_ms": "3000"})
    ue = lab.registered_ue()
    lab.pcf().cmd("answer cmd=aar-i drop")
    lab.aar_i("wait=0", ip=ue.ipv4)
    wait_until(lambda: lab.pcf().events(type="recv"), what="the PCF to get the AAR")
    lab.pcf().kill()
    wait_until(lambda: lab.af.events(type="recv", label="aar-i"), what="the AF's answer")
    (answer,) = lab.af.events(type="recv", label="aar-i")
    assert answer["status"] == "answer" and answer["result_code"] == 3002, answer
    assert answer["latency_ms"] < 5000, answer
    wait_until(lambda: lab.pending() == 0, what="nothing pending")


def test_pcf_leaving_with_dpr_while_requests_are_pending(rx_lab):
    """The PCF closes its connection (DPR) with three AAR-Is unanswered: the AF gets 3002 for
    each at once (not at the 20 s timeout), and nothing is left pending."""
    lab = rx_lab(settings={"diameter.timeout_aar_ms": "20000"})
    ues = [Ue() for _ in range(3)]
    for ue in ues:
        lab.register(ue)
    lab.hold_aar_is(ues)
    lab.pcf().stop()
    wait_until(lambda: len(lab.af.events(type="recv", label="aar-i")) == 3, what="3 answers")
    for answer in lab.af.events(type="recv", label="aar-i"):
        assert answer["result_code"] == 3002 and answer["latency_ms"] < 10000, answer
    wait_until(lambda: lab.pending() == 0, what="nothing pending")
    assert "fd_out_send" not in lab.bsfd.stderr_text()


def test_answers_for_an_af_that_has_left_are_dropped(rx_lab):
    """The AF leaves, then the PCF leaves with the AF's requests pending: the gateway's 3002
    answers have nowhere to go. They are dropped and counted; libfdcore is never handed a
    message for a closed connection (it would lose its memory: the sanitizer build checks)."""
    lab = rx_lab(settings={"diameter.timeout_aar_ms": "20000"})
    ues = [Ue() for _ in range(3)]
    for ue in ues:
        lab.register(ue)
    lab.hold_aar_is(ues)
    lab.af.stop()
    wait_until(lambda: not peer_up(lab.bsfd, "af.test.local"), what="bsfd to see the AF go")
    lab.pcf().stop()
    wait_until(lambda: lab.pending() == 0, what="nothing pending")
    wait_until(lambda: metric(lab.bsfd, "ocbsf_diam_events_total", event="dropped") >= 3,
               what="the three answers dropped")
    assert metric(lab.bsfd, "ocbsf_diam_events_total", event="dropped") == 3
    assert "fd_out_send" not in lab.bsfd.stderr_text()


def test_af_disconnect_and_reconnect(rx_lab):
    lab = rx_lab()
    ue = lab.registered_ue()
    sid = lab.aar_i(ip=ue.ipv4)["session_id"]
    lab.af.kill()
    wait_until(lambda: not peer_up(lab.bsfd, "af.test.local"), what="bsfd to see the AF go")
    # the PCF's RAR cannot reach the AF: an answer comes back anyway
    reply = lab.pcf().cmd(f"rar session={sid}")
    assert reply["status"] == "answer" and reply["code"] == 3002, reply
    from rx_support import AF_ID, BSF_ID, RxPeer
    # the same request timeout as the lab's first AF: 5 s is short for an ASan bsfd on a
    # loaded machine, and a timed-out AAR-I has no Result-Code to compare
    lab.af = RxPeer("af", lab.tmp, AF_ID, ["--realm", lab.realm, "--peer", BSF_ID,
                                            "--peer-port", lab.diameter_port,
                                            "--timeout-ms", "15000", "--tc-timer", "1"])
    lab.af.wait_peer(BSF_ID)
    wait_until(lambda: peer_up(lab.bsfd, AF_ID), what="bsfd to see the AF back")
    answer = lab.aar_i(ip=ue.ipv4)
    assert answer.get("code") == 2001, answer
    # the session (and its AF identity) is still followed: the new connection gets the RAR
    assert lab.pcf().cmd(f"rar session={sid}")["status"] == "answer"
    assert len(lab.af.received(sid, "rar")) == 1


# ---- configuration -------------------------------------------------------------------------

@pytest.mark.parametrize("key, value", [
    ("diameter.identity", "not an identity"),
    ("diameter.realm", ""),
    ("diameter.listen", "localhost"),
    ("diameter.peers", "pcf1.test.local"),
    ("diameter.peers", "pcf1.test.local=127.0.0.1:0"),
    ("diameter.accept", "a b"),
    ("diameter.routes", "realm=test.local"),
    ("diameter.routes", "realm=test.local peer=p priority=high"),
    ("diameter.retry", "ccr"),
    ("diameter.retry_codes", "2***"),
    ("diameter.retry_codes", "5xx"),
    ("diameter.stale_binding_codes", "2001"),
    ("diameter.timeout_ms", "2999"),
    ("diameter.timeout_aar_ms", "2999"),
    ("diameter.max_sessions", "0"),
    ("diameter.retry_originator", "somewhere"),
    ("diameter.cpus", "first"),
    ("diameter.cpus", "3-1"),
    ("diameter.cpus", "0-99999"),
    ("diameter.congestion.cpu_thresholds", "80;70;60;50"),
    ("diameter.congestion.queue_thresholds", "10;20;30"),
    ("diameter.congestion.discard_priorities", "15;17;19;27"),
    ("diameter.congestion.discard_percentages", "DOC 1-2"),
    ("diameter.congestion.priorities", "ccr=3"),
    ("diameter.congestion.priority_rules", "cmd=aar oc=>3 priority=1"),
    ("diameter.congestion.priority_rules", "cmd=ccr priority=1"),
    ("diameter.congestion.shedding", "random"),
    ("diameter.congestion.interval_ms", "10"),
    ("diameter.congestion.result_code", "2001"),
])
def test_invalid_diameter_setting_exits_2_naming_the_key(tmp_path, key, value):
    stderr = refused_at_start(tmp_path, {"diameter.enabled": "true", key: value})
    assert key in stderr, stderr
