"""Replication between three sites through a real Kafka broker: what one site writes, every
site serves; conflicting registrations at two sites converge; new and wiped sites bootstrap
from the log."""

import shutil
import threading

from replication_support import (assert_log_exact, found_everywhere, gone_everywhere,
                                 kafka_events, metrics, registration, wait_converged, wait_for)
from support import (Ue, assert_binding, assert_no_content, delete, discover, found, patch,
                     register, sbi_time, utc_now)

TIMEOUT = 30


def test_register_update_deregister_reach_every_site(site_factory):
    a, b, c = site_factory.start(3)
    ue = Ue()
    binding_id, _ = register(a.client, registration(ue))
    wait_for(lambda: found_everywhere([b, c], ue), TIMEOUT, "the binding at B and C")
    assert found(b.client, ipv4Addr=ue.ipv4)["supi"] == ue.supi

    # an update made at C (of A's binding) reaches A and B
    assert_binding(patch(c.client, binding_id, {"pcfFqdn": "pcf9.example.com"}), 200)
    wait_for(lambda: found_everywhere([a, b, c], ue, pcf="pcf9.example.com"), TIMEOUT,
             "the update everywhere")

    # deregister at B: gone everywhere
    assert_no_content(delete(b.client, binding_id))
    wait_for(lambda: gone_everywhere([a, b, c], ue), TIMEOUT, "the binding gone everywhere")
    digest = wait_converged([a, b, c])

    # every site's log holds the three events; each was produced once, by its site
    history = [(e["type"], e["site"]) for e in c.history(binding=binding_id)]
    assert history == [("BindingRegistered", 1), ("BindingUpdated", 3),
                       ("BindingDeregistered", 2)], history
    events = kafka_events(site_factory.broker, site_factory.topics(3))
    assert_log_exact(events, [a, b, c])
    assert len(events) == 3
    assert a.digest() == digest


def test_metrics_per_source_site(site_factory):
    a, b = site_factory.start(2)
    for _ in range(5):
        register(a.client, registration(Ue()))
    wait_converged([a, b])
    m = metrics(b)
    assert m['bsf_replication_applied_events_total{source_site="1"}'] == 5
    assert m['bsf_replication_lag_events{source_site="1"}'] == 0
    assert m['bsf_replication_lag_seconds{source_site="1"}'] == 0
    assert m["bsf_replication_apply_delay_seconds_count"] == 5
    ma = metrics(a)
    assert ma["bsf_replication_shipper_backlog_events"] == 0
    assert ma["bsf_replication_shipped_seq"] == 5
    assert ma["bsf_replication_shipper_connected"] == 1
    assert ma['bsf_replication_kafka_transactions_total{result="committed"}'] >= 1


def _conflicting_pair(first, second, ue, newer_first):
    """Registers the same session at two sites at once, from two PCFs; the origination
    timestamps say which is newer. Returns the newer PCF."""
    now = utc_now()
    import datetime
    older, newer = now - datetime.timedelta(seconds=1), now
    bodies = {first: registration(ue, pcf="pcf-a.example.com"),
              second: registration(ue, pcf="pcf-b.example.com")}
    stamps = {first: newer if newer_first else older, second: older if newer_first else newer}
    barrier = threading.Barrier(2)
    results = {}

    def post(site):
        client = site.new_client()
        barrier.wait()
        results[site] = client.post("/pcfBindings", json=bodies[site],
                                    headers={"3gpp-Sbi-Origination-Timestamp":
                                             sbi_time(stamps[site])})
        client.close()

    threads = [threading.Thread(target=post, args=(site,)) for site in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for resp in results.values():
        assert resp.status_code in (201, 403), resp.text
    return "pcf-a.example.com" if newer_first else "pcf-b.example.com"


def test_conflicting_registrations_at_two_sites_converge(site_factory):
    a, b, c = site_factory.start(3)
    expected = {}
    for i in range(12):
        ue = Ue()
        expected[ue] = _conflicting_pair(a, b, ue, newer_first=i % 2 == 0)
    digest = wait_converged([a, b, c])
    for ue, pcf in expected.items():
        for site in (a, b, c):
            assert found(site.client, ipv4Addr=ue.ipv4)["pcfFqdn"] == pcf, (ue.ipv4, site)
    # one live binding per session everywhere: the loser was deregistered exactly once
    for ue in expected:
        events = c.history(ue_addr=ue.ipv4)
        live = {e["bindingId"] for e in events if e["type"] == "BindingRegistered"} - \
            {e["bindingId"] for e in events if e["type"] == "BindingDeregistered"}
        assert len(live) == 1, events
        deregs = [e for e in events if e["type"] == "BindingDeregistered"]
        assert len(deregs) == len({e["bindingId"] for e in deregs}), events
    assert_log_exact(kafka_events(site_factory.broker, site_factory.topics(3)), [a, b, c])
    resolved = sum(metrics(s).get("bsf_replication_collisions_resolved_total", 0)
                   for s in (a, b, c))
    print(f"collisions resolved across sites: {resolved:.0f}")
    assert a.digest() == digest


def test_new_site_bootstraps_and_wiped_site_recovers(site_factory):
    a, b = site_factory.start(2, total=3)
    ues = [Ue() for _ in range(20)]
    ids = [register((a if i % 2 else b).client, registration(ue))[0]
           for i, ue in enumerate(ues)]
    assert_no_content(delete(b.client, ids[0]))  # at the site that registered it
    digest = wait_converged([a, b])

    # a third site joins with an empty store: ready only once it has applied the log
    c = site_factory.site(3, 3)
    assert c.digest() == digest
    assert_no_content(discover(c.client, ipv4Addr=ues[0].ipv4))
    assert found(c.client, ipv4Addr=ues[5].ipv4)["supi"] == ues[5].supi

    # C writes, then loses its store: it gets its own events back from the log and goes on
    # with new sequence numbers (never one that is already in Kafka)
    own = [register(c.client, registration(Ue()))[0] for _ in range(3)]
    wait_converged([a, b, c])
    c.stop()
    shutil.rmtree(c.store)
    c.store.mkdir()
    c.start()
    for binding_id in own:
        assert [e["type"] for e in c.history(binding=binding_id)] == ["BindingRegistered"]
    later = register(c.client, registration(Ue()))[0]
    wait_converged([a, b, c])
    seqs = [e["seq"] for e in c.history(binding=later)]
    assert seqs == [4], seqs
    assert_log_exact(kafka_events(site_factory.broker, site_factory.topics(3)), [a, b, c])
