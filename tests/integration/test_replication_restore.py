"""Restoring a backup into a site that replicates through Kafka (docs/operations.md, "Backup and
restore"): the store keeps its consumer positions and its own sequence number, so the restored
site reads back from the topics what the other site *and itself* wrote after the backup, and
catches up to the peer's digest; the sequence it continues with is its own (every site's
events in Kafka are 1..N, each once). A store of another site is refused at start, also here
(exit code 2), before it can ship anything under the wrong site id."""

import subprocess

from conftest import assert_no_sanitizer_report, kafka_broker, run_bsfctl, site_factory  # noqa: F401
from replication_support import (assert_log_exact, found_everywhere, gone_everywhere,
                                 kafka_events, registration, wait_converged)
from support import Ue, delete, discover, patch, register
from test_backup_restore import backup, restore


def register_many(site, n):
    """n registrations at `site`; returns [(ue, binding id)]."""
    out = []
    for _ in range(n):
        ue = Ue()
        binding_id, _ = register(site.client, registration(ue))
        out.append((ue, binding_id))
    return out


def test_restored_site_catches_up_to_its_peer(site_factory, kafka_broker, tmp_path):
    a, b = site_factory.start(2)
    before_a, before_b = register_many(a, 15), register_many(b, 15)
    wait_converged([a, b])
    path = tmp_path / "site2.bak"
    info = backup(b.store, path)  # while b serves
    assert info["site_id"] == 2

    # after the backup: both sites write; b's own events exist only in Kafka for the backup
    after_a, after_b = register_many(a, 10), register_many(b, 10)
    gone = [before_a[0], before_b[0]]
    assert delete(a.client, before_a[0][1]).status_code == 204
    assert delete(b.client, before_b[0][1]).status_code == 204
    updated_ue, updated_id = before_b[1]
    assert patch(b.client, updated_id, {"pcfFqdn": "pcf7.example.com"}).status_code == 200
    digest = wait_converged([a, b])

    b.stop()
    restore(b.store, path, "--force")
    b.start()
    assert wait_converged([a, b]) == digest
    for ue, _ in before_a[1:] + before_b[1:] + after_a + after_b:
        assert found_everywhere([b], ue), ue.ipv4
    assert gone_everywhere([b], gone[0][0]) and gone_everywhere([b], gone[1][0])
    assert discover(b.client, ipv4Addr=updated_ue.ipv4).json()["pcfFqdn"] == "pcf7.example.com"

    # the restored site writes on after its own last event in Kafka, not from the backup's
    later = register_many(b, 3)
    wait_converged([a, b])
    assert found_everywhere([a], later[-1][0])
    assert_log_exact(kafka_events(kafka_broker, site_factory.topics(2)), [a, b])


def test_backup_of_another_site_refused_at_a_replicating_site(site_factory, kafka_broker,
                                                             tmp_path):
    a, b = site_factory.start(2)
    register_many(a, 3)
    wait_converged([a, b])
    path = tmp_path / "site1.bak"
    assert backup(a.store, path)["site_id"] == 1
    shipped = [e for e in kafka_events(kafka_broker, site_factory.topics(2)) if e["site"] == 2]
    b.stop()
    restore(b.store, path, "--force")
    done = subprocess.run(b.command(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "site.id is 2 but the store belongs to site 1" in done.stderr, done.stderr[-2000:]
    assert_no_sanitizer_report(done.stderr, "bsfd")
    # nothing was shipped under site 2 from site 1's store
    assert [e for e in kafka_events(kafka_broker, site_factory.topics(2))
            if e["site"] == 2] == shipped
    # the store is untouched: still site 1's, with its digest
    assert run_bsfctl(b.store, "digest").stdout.strip() == a.digest()
