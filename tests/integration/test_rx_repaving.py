"""Connection repaving of the Diameter front end (seed 3.45): an operator's trigger on the admin
listener (ops.admin_listen) makes bsfd send DPR to every inbound connection established before
it, one at a time, so that the peers reconnect through the load balancer. Bare TCP peers
(diameter_wire) check the DPRs' cause and spacing; a real libfdcore AF checks that it
reconnects and its traffic flows.
"""

import time

from diameter_wire import DISCONNECT_CAUSE, WirePeer
from rx_support import AF_ID, BSF_ID, REALM, metric, peer_up, rx_lab  # noqa: F401 (fixture)
from support import Ue, wait_until

BASE = "/oc-bsf-configuration/v1/diameterRepaving"
BUSY = 1


def repaving_lab(rx_lab, **settings):
    config = {"diameter.accept": "*", "diameter.repaving.enabled": "true",
              "diameter.repaving.max_stagger_jitter_ms": "0",
              "diameter.repaving.disconnect_interval_ms": "200",
              "diameter.repaving.reinvocation_delay_min": "0"}
    config.update(settings)
    return rx_lab(settings=config)


def wire_peers(lab, n, prefix="wire"):
    peers = [WirePeer(lab.diameter_port, f"{prefix}{i}.{REALM}", REALM) for i in range(n)]
    for p in peers:
        wait_until(lambda p=p: peer_up(lab.bsfd, p.identity), what=f"{p.identity} connected")
    return peers


def trigger(lab, **body):
    resp = lab.bsfd.admin.post(f"{BASE}/triggerDisconnection", json=body or None)
    assert resp.status_code in (200, 202), resp.text
    return resp.json()


def status(lab):
    resp = lab.bsfd.admin.get(f"{BASE}/status")
    assert resp.status_code == 200, resp.text
    return resp.json()


def idle(lab):
    st = status(lab)
    return not st["busy"] and st["queued"] == 0


def disconnections(lab):
    return metric(lab.bsfd, "diam_repaving_disconnections_total")


def assert_spaced(times, interval):
    """DPRs `interval` apart: bsfd spaces the disconnections; each DPR then leaves from its
    peer's own thread and is timestamped by a reader thread here, so one arrival can be a
    little late and shorten the next gap, but the span of the run cannot."""
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= interval * 0.75, gaps
    assert times[-1] - times[0] >= (len(times) - 1) * interval - 0.03, gaps


def connections_made(lab):
    return metric(lab.bsfd, "ocbsf_diam_events_total", event="connected")


def test_every_inbound_connection_gets_a_dpr_at_the_configured_spacing(rx_lab):
    """Acceptance 1: 5 peers, interval 200 ms, no jitter -> 5 DPRs with the configured cause,
    at least 200 ms apart; the counter says 5; the PCFs bsfd connects to are kept."""
    lab = repaving_lab(rx_lab, **{"diameter.repaving.disconnect_cause": "BUSY"})
    peers = wire_peers(lab, 4)
    before = disconnections(lab)
    answer = trigger(lab)
    assert answer["outcome"] == "queued" and answer["invocationId"] and answer["requestTimestamp"]
    wait_until(lambda: all(p.dprs() for p in peers), what="a DPR on every wire peer")
    wait_until(lambda: idle(lab), what="the run to end")
    times = sorted(p.dprs()[0].at for p in peers)
    assert all(p.dprs()[0].u32(DISCONNECT_CAUSE) == BUSY for p in peers)
    # the AF is inbound too: it got one of the five DPRs
    assert_spaced(times, 0.2)
    assert disconnections(lab) - before == 5
    wait_until(lambda: all(p.closed_at for p in peers), what="bsfd to close the connections")
    assert all(len(p.dprs()) == 1 for p in peers)
    assert peer_up(lab.bsfd, "pcf1.test.local")
    st = status(lab)
    assert st["lastInvocationId"] == answer["invocationId"] and st["disconnections"] == 5
    for p in peers:
        p.close()


def test_a_connection_made_after_the_trigger_is_kept(rx_lab):
    """Acceptance 2: a peer that connects while a run is in progress keeps its connection."""
    lab = repaving_lab(rx_lab, **{"diameter.repaving.disconnect_interval_ms": "700"})
    old = wire_peers(lab, 2, "old")
    trigger(lab)
    wait_until(lambda: status(lab)["busy"], what="the run to start")
    late = wire_peers(lab, 1, "late")[0]
    wait_until(lambda: idle(lab), what="the run to end")
    wait_until(lambda: all(p.dprs() for p in old), what="DPRs to the old connections")
    assert not late.dprs() and late.closed_at is None
    assert peer_up(lab.bsfd, late.identity)
    assert disconnections(lab) == 3  # the two old peers and the AF
    for p in (*old, late):
        p.close()


def test_disabled_repaving_records_the_trigger_and_disconnects_nothing(rx_lab):
    """Acceptance 3, and the switch at run time."""
    lab = repaving_lab(rx_lab, **{"diameter.repaving.enabled": "false"})
    peer = wire_peers(lab, 1)[0]
    answer = trigger(lab)
    assert answer["outcome"] == "disabled"
    time.sleep(0.5)
    assert not peer.dprs() and peer_up(lab.bsfd, peer.identity) and peer_up(lab.bsfd, AF_ID)
    assert disconnections(lab) == 0
    assert metric(lab.bsfd, "diam_repaving_triggers_total", outcome="disabled") == 1

    resp = lab.bsfd.admin.put(f"{BASE}/config", json={"enabled": True})
    assert resp.status_code == 200 and resp.json()["enabled"] is True, resp.text
    assert trigger(lab)["outcome"] == "queued"
    wait_until(lambda: peer.dprs(), what="a DPR once enabled")
    peer.close()


def test_two_triggers_run_one_after_the_other(rx_lab):
    """Acceptance 4: the second trigger waits for the first; it only finds the connections
    established before it that the first run left (none of the first run's)."""
    lab = repaving_lab(rx_lab)
    peers = wire_peers(lab, 3)
    first = trigger(lab)
    second = trigger(lab)
    assert (first["outcome"], second["outcome"]) == ("queued", "queued")
    wait_until(lambda: all(p.dprs() for p in peers), what="the DPRs")
    wait_until(lambda: idle(lab), what="both runs to end")
    assert all(len(p.dprs()) == 1 for p in peers)
    assert_spaced(sorted(p.dprs()[0].at for p in peers), 0.2)
    assert metric(lab.bsfd, "diam_repaving_triggers_total", outcome="completed") == 2
    # the AF reconnected during or after the first run: the second found it only if it came
    # back before T2, which it could not (1 s reconnection timer); 3 wire peers + the AF
    assert disconnections(lab) == 4
    for p in peers:
        p.close()


def test_a_redelivered_invocation_is_ignored(rx_lab):
    """Acceptance 5, and what the trigger resource refuses."""
    lab = repaving_lab(rx_lab)
    assert trigger(lab, invocationId="trigger-UUID-1")["outcome"] == "queued"
    wait_until(lambda: idle(lab), what="the run to end")
    again = trigger(lab, invocationId="trigger-UUID-1")
    assert again["outcome"] == "duplicate"
    assert metric(lab.bsfd, "diam_repaving_triggers_total", outcome="completed") == 1
    assert metric(lab.bsfd, "diam_repaving_triggers_total", outcome="duplicate") == 1
    for body, why in ((b"[1]", "JSON object"), (b'{"invocationId": 7}', "string"),
                      (b'{"invocationId": "has space"}', "letters")):
        resp = lab.bsfd.admin.post(f"{BASE}/triggerDisconnection", content=body)
        assert resp.status_code == 400, resp.text
        assert resp.headers["content-type"] == "application/problem+json"
        assert resp.json()["cause"] == "INVALID_MSG_FORMAT" and why in resp.json()["detail"]
    resp = lab.bsfd.admin.get(f"{BASE}/triggerDisconnection")
    assert resp.status_code == 405
    resp = lab.bsfd.admin.put(f"{BASE}/config", json={"enabled": True, "maxStaggerJitterMs": 5})
    assert resp.status_code == 400
    resp = lab.bsfd.admin.post(f"{BASE}/triggerDisconnection", content=b"x" * 20000)
    assert resp.status_code == 413


def test_a_trigger_within_the_reinvocation_delay_is_skipped(rx_lab):
    lab = repaving_lab(rx_lab, **{"diameter.repaving.reinvocation_delay_min": "5"})
    made = connections_made(lab)
    trigger(lab)
    wait_until(lambda: idle(lab) and status(lab)["lastCompleted"], what="the first run to end")
    wait_until(lambda: connections_made(lab) > made, what="the AF to reconnect")
    trigger(lab)
    wait_until(lambda: metric(lab.bsfd, "diam_repaving_triggers_total", outcome="skipped") == 1,
               what="the second trigger to be skipped")
    assert disconnections(lab) == 1
    assert peer_up(lab.bsfd, AF_ID)


def test_a_repaved_af_reconnects_and_its_sessions_flow_again(rx_lab):
    """End to end with a real libfdcore AF: after the DPR (REBOOTING) it reconnects by
    itself and an AAR-I is proxied again; the configured PCF connection stays up."""
    lab = repaving_lab(rx_lab)
    ue = Ue()
    lab.register(ue)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    made = connections_made(lab)
    trigger(lab)
    wait_until(lambda: disconnections(lab) == 1, what="the AF to be sent a DPR")
    wait_until(lambda: connections_made(lab) > made, what="the AF to reconnect")
    lab.af.wait_peer(BSF_ID)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    assert peer_up(lab.bsfd, "pcf1.test.local")
    assert disconnections(lab) == 1


def test_the_repaving_routes_are_served_on_the_admin_listener_only(rx_lab, tmp_path):
    """Issue 13 §5: routes that change state are off the listener that serves /metrics, and
    the admin listener's token guards them when one is configured."""
    token = tmp_path / "admin-token"
    token.write_text("repaving-admin-token-0123456789\n")
    lab = repaving_lab(rx_lab, **{"diameter.repaving.enabled": "false",
                                  "ops.admin_token_file": token})
    for path in ("/triggerDisconnection", "/config", "/status"):
        assert lab.bsfd.ops.get(f"{BASE}{path}").status_code == 404, path
        assert lab.bsfd.ops.post(f"{BASE}{path}", json={}).status_code in (404, 405), path
    resp = lab.bsfd.admin.post(f"{BASE}/triggerDisconnection", json={})
    assert resp.status_code == 401 and resp.headers["www-authenticate"] == "Bearer", resp.text
    assert metric(lab.bsfd, "diam_repaving_triggers_total", outcome="disabled") == 0
    auth = {"authorization": "Bearer repaving-admin-token-0123456789"}
    resp = lab.bsfd.admin.post(f"{BASE}/triggerDisconnection", json={}, headers=auth)
    assert resp.status_code == 202 and resp.json()["outcome"] == "disabled", resp.text
    assert lab.bsfd.admin.get(f"{BASE}/status", headers=auth).status_code == 200
