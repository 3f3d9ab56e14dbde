"""Rolling upgrade of a three-site set through a real Kafka broker (issue 15 §3,
docs/operations.md "Upgrading"): three sites run the previous release (built from git,
upgrade_support.PREVIOUS_COMMIT); one at a time each is stopped and started on this release's
bsfd on the same store while the other two take registrations. Old and new sites read each
other's events throughout, nothing acknowledged is lost, the digests converge; once all run
this release, version-2 events are switched on one site at a time and the set converges again,
with a replay of the topics giving the same digest."""

import subprocess

import pytest

from conftest import BSFD, SiteFactory
from replication_support import Writer, found_everywhere, kafka_events, registration, \
    run_bsfctl, wait_converged, wait_for
from support import Ue, discover, metrics, register
from upgrade_support import PreviousBsfd, previous_binaries

TIMEOUT = 60


def version(binary):
    """What `binary --version` says ("bsfd 0.1.0..."); the start-up log line repeats it."""
    return subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture
def old_sites(kafka_broker, tmp_path_factory):
    old_bsfd, _ = previous_binaries()
    factory = SiteFactory(None, kafka_broker)
    sites = [PreviousBsfd(tmp_path_factory.mktemp(f"site{i}"), factory.settings(i, 3),
                          binary=old_bsfd) for i in (1, 2, 3)]
    for site in sites:
        site.start()
        assert f"{version(old_bsfd)} starting" in site.stderr_text()
    assert version(old_bsfd) != version(BSFD), "the previous release is another build"
    yield factory, sites
    for site in sites:
        if site.running:
            site.stop()


def probe(origin, sites):
    """A registration at `origin` that every site must find (each reads the others)."""
    ue = Ue()
    register(origin.client, registration(ue))
    wait_for(lambda: found_everywhere(sites, ue), TIMEOUT,
             f"site {origin.settings['site.id']}'s binding at every site")
    return ue


def restart_under_load(sites, writers, i, binary=None, settings=None):
    """Site i restarted (on `binary`, None: this release) while the others' writers go on."""
    writers[i].stop()
    sites[i].stop()
    sites[i].binary = binary
    sites[i].settings.update(settings or {})
    sites[i].start()
    assert f"{version(binary or BSFD)} starting" in sites[i].stderr_text()
    writers[i] = Writer(sites[i], pause=0.02)
    writers[i].start()
    others = [w for j, w in enumerate(writers) if j != i]
    marks = [len(w.acknowledged) for w in others]
    wait_for(lambda: all(len(w.acknowledged) > m + 5 for w, m in zip(others, marks)) and
             len(writers[i].acknowledged) > 5, TIMEOUT, "every site serving writes")


def test_rolling_upgrade_of_three_sites(old_sites, kafka_broker):
    factory, sites = old_sites
    writers = [Writer(site, pause=0.02) for site in sites]
    finished = []
    for w in writers:
        w.start()
    try:
        wait_for(lambda: all(len(w.acknowledged) > 10 for w in writers), TIMEOUT, "load")
        probes = []
        for i in range(3):  # site 1, then 2, then 3 on the new binary
            finished.append(writers[i])
            restart_under_load(sites, writers, i)
            # the upgraded site's events reach the old ones and theirs reach it
            probes += [probe(sites[i], sites), probe(sites[(i + 1) % 3], sites)]
        # all on this release, still writing version 1
        assert {e["v"] for e in kafka_events(kafka_broker, factory.topics(3))} == {1}
        for i in range(3):  # version 2, one site at a time
            finished.append(writers[i])
            restart_under_load(sites, writers, i, settings={"events.write_version": "2"})
            probes.append(probe(sites[i], sites))
    finally:
        for w in writers:
            w.stop()
    digest = wait_converged(sites, timeout=120)
    acknowledged = [ue for w in finished + writers for ue, _ in w.acknowledged]
    for w in finished + writers:
        assert not w.errors, w.errors[:3]
        assert not w.refused, w.refused[:3]
    # nothing acknowledged lost: every site holds every one (equal digests), checked at one
    assert all(site.count() == len(acknowledged) + len(probes) for site in sites)
    for ue in acknowledged + probes:
        assert discover(sites[2].client, ipv4Addr=ue.ipv4).status_code == 200, ue.ipv4
    versions = {e["v"] for e in kafka_events(kafka_broker, factory.topics(3))}
    assert versions == {1, 2}, versions
    # the topics, old and new events together, replay into the same projections
    for site in sites:
        site.stop()
    out = sites[0].workdir / "replayed"
    done = run_bsfctl("replay", "--kafka", kafka_broker.bootstrap, "--topics",
                      ",".join(factory.topics(3)), "--from-beginning", "--out", out)
    assert done.stdout.decode().strip() == digest


def test_version_2_before_every_site_is_upgraded_is_lost_at_the_old_ones(old_sites):
    """Why events.write_version stays 1 until the last site runs this release: the previous
    release skips an event of a version it does not read (and counts it), so a binding
    written in version 2 never reaches a site still on it."""
    factory, sites = old_sites
    new = sites[0]
    new.stop()
    new.binary = None
    new.settings["events.write_version"] = "2"
    new.start()
    ue = Ue()
    register(new.client, registration(ue))
    wait_for(lambda: metrics(sites[1]).get("bsf_replication_bad_events_total", 0) >= 1,
             TIMEOUT, "the old site refusing the version-2 event")
    assert "unsupported event version 2" in sites[1].stderr_text()
    assert discover(sites[1].client, ipv4Addr=ue.ipv4).status_code == 204
    assert discover(new.client, ipv4Addr=ue.ipv4).status_code == 200
