"""Replication under failures, with a real Kafka broker: a site killed with SIGKILL during
load, the broker stopped during load with durability=local (every acknowledged write reaches
every site, no event twice in the log) and with durability=replicated (writes during the
outage are refused cleanly and none is half-applied)."""

import time

from replication_support import (assert_log_exact, found_everywhere, gone_everywhere,
                                 kafka_events, metrics, registration, start_writers,
                                 wait_converged, wait_for)
from support import Ue, assert_problem, discover, found, sbi_time, utc_now

import json


def _check_acknowledged(sites, writers, may_have_committed=0):
    """Every acknowledged registration is served by every site (count and discovery). A
    request whose answer never came (its site was killed) may or may not have been committed
    before the kill: it may be there too, nothing else may. So may `may_have_committed`
    refused ones (a replicated write whose Kafka acknowledgement timed out)."""
    acknowledged = [ue for w in writers for ue, _ in w.acknowledged]
    unanswered = sum(len(w.errors) for w in writers) + may_have_committed
    for site in sites:
        assert len(acknowledged) <= site.count() <= len(acknowledged) + unanswered, (
            site.settings["site.id"], site.count(), len(acknowledged), unanswered)
    for ue in acknowledged[::7]:
        for site in sites:
            assert found(site.client, ipv4Addr=ue.ipv4)["supi"] == ue.supi
    return acknowledged


def _local_events(site):
    out = site.bsfctl("export").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_kill9_during_load_catches_up(site_factory):
    a, b, c = site_factory.start(3)
    writers = start_writers((a, b, c), 30)
    c.kill9()
    writers[2].stop()
    time.sleep(1.0)  # A and B keep writing while C is down
    c.start()
    time.sleep(0.5)
    for w in writers[:2]:
        w.stop()
    wait_converged([a, b, c], timeout=60)
    acknowledged = _check_acknowledged([a, b, c], writers)
    assert len(acknowledged) > 100
    print(f"acknowledged {len(acknowledged)}")
    assert_log_exact(kafka_events(site_factory.broker, site_factory.topics(3)), [a, b, c])


def test_broker_outage_with_local_durability(site_factory):
    broker = site_factory.broker
    a, b, c = site_factory.start(3)
    writers = start_writers((a, b, c), 20)
    wait_everywhere([a, b, c], writers[0].acknowledged[0][0])
    broker.stop()
    try:
        # writes go on during the outage: answered after the local commit
        before = sum(len(w.acknowledged) for w in writers)
        wait_for(lambda: sum(len(w.acknowledged) for w in writers) > before + 100, 30,
                 "writes acknowledged during the outage")
        # the same session registered at A and B from two PCFs while they cannot see each other
        conflicts = {}
        now = utc_now()
        for i in range(4):
            ue = Ue()
            older, newer = (a, b) if i % 2 else (b, a)
            older.client.post("/pcfBindings", json=registration(ue, pcf="pcf-old.example.com"),
                              headers={"3gpp-Sbi-Origination-Timestamp": sbi_time(now)})
            newer.client.post("/pcfBindings", json=registration(ue, pcf="pcf-new.example.com"),
                              headers={"3gpp-Sbi-Origination-Timestamp":
                                       sbi_time(now.replace(microsecond=0) +
                                                __import__("datetime").timedelta(seconds=2))})
            conflicts[ue] = "pcf-new.example.com"
        assert metrics(a)["bsf_replication_shipper_backlog_events"] > 0
        # discovery keeps working at every site
        for site in (a, b, c):
            ue = writers[0].acknowledged[0][0]
            assert discover(site.client, ipv4Addr=ue.ipv4).status_code == 200
    finally:
        broker.start()
    time.sleep(1.0)
    for w in writers:
        w.stop()
    for w in writers:
        assert not w.refused, w.refused[:3]
    wait_converged([a, b, c], timeout=90)
    _check_acknowledged([a, b, c], writers + [_Conflicts(conflicts)])
    for ue, pcf in conflicts.items():
        assert found_everywhere([a, b, c], ue, pcf=pcf)
    events = kafka_events(broker, site_factory.topics(3))
    assert_log_exact(events, [a, b, c])
    assert len(events) == len(_local_events(a))


def wait_everywhere(sites, ue):
    """Waits until every site finds `ue` (what the outage's discovery checks look up)."""
    wait_for(lambda: all(discover(s.client, ipv4Addr=ue.ipv4).status_code == 200
                         for s in sites), 30, f"{ue.ipv4} at every site")


class _Conflicts:
    """The conflicting pairs as one more writer whose UEs each hold one live binding."""

    def __init__(self, conflicts):
        self.acknowledged = [(ue, None) for ue in conflicts]
        self.errors = []


def test_broker_outage_with_replicated_durability(site_factory):
    broker = site_factory.broker
    settings = {"log.durability": "replicated", "kafka.replicated_timeout_ms": 1500}
    a, b, c = site_factory.start(3, settings)
    writers = start_writers((a, b), 20, "load")
    wait_everywhere([a, b, c], writers[0].acknowledged[0][0])
    broker.stop()
    try:
        wait_for(lambda: all(len(w.refused) >= 3 for w in writers), 30,
                 "writes refused during the outage")
        # the refusal is a clean 503 ProblemDetails
        resp = c.client.post("/pcfBindings", json=registration(Ue()))
        body = assert_problem(resp, 503, "NF_CONGESTION")
        assert "Kafka" in body["detail"], body
        # discovery keeps working
        ue = writers[0].acknowledged[0][0]
        for site in (a, b, c):
            assert discover(site.client, ipv4Addr=ue.ipv4).status_code == 200
    finally:
        broker.start()
    # writes are taken again once the broker is back
    refused_at_restart = [len(w.acknowledged) for w in writers]
    wait_for(lambda: all(len(w.acknowledged) > n + 10
                         for w, n in zip(writers, refused_at_restart)), 60,
             "writes acknowledged again after the outage")
    for w in writers:
        w.stop()
    wait_converged([a, b, c], timeout=60)
    # a refusal after the Kafka timeout may have committed (checked one by one below)
    timed_out = sum(1 for w in writers for _, _, body in w.refused if "not connected" not in body)
    acknowledged = _check_acknowledged([a, b, c], writers, may_have_committed=timed_out)
    # no refused write is half-applied: each is everywhere or nowhere (a write whose Kafka
    # commit succeeded while its answer was lost is everywhere)
    refused = [ue for w in writers for ue, status, _ in w.refused]
    assert all(status == 503 for w in writers for _, status, _ in w.refused)
    appeared = 0
    for w in writers:
        for ue, _, body in w.refused:
            if gone_everywhere([a, b, c], ue):
                continue
            assert found_everywhere([a, b, c], ue), f"refused write {ue.ipv4} is half-applied"
            # only a transaction that reached Kafka and timed out can have committed there
            assert "not connected" not in body, body
            appeared += 1
    print(f"acknowledged {len(acknowledged)}, refused {len(refused)}, refused but committed "
          f"{appeared}")
    events = kafka_events(broker, site_factory.topics(3))
    assert_log_exact(events, [a, b, c])
    for site in (a, b, c):
        assert {(e["site"], e["seq"]) for e in _local_events(site)} == \
            {(e["site"], e["seq"]) for e in events}
    assert len(acknowledged) + appeared == len(events)
    m = metrics(a)
    assert m["bsf_replication_refused_writes_total"] > 0
    assert m["bsf_replication_producer_connects_total"] >= 2
