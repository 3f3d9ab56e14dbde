"""log.retention and log.archive_dir (issue 12 §3): events older than the retention leave the
local log in bounded batches, into the archive first; the archive plus the live log give the
history of a store that never trimmed; with log.backend = kafka nothing leaves before it is
shipped, even through a broker outage; kill -9 while trimming loses nothing acknowledged and
leaves the archive consistent."""

import json
import os
import time

import httpx
import pytest

from conftest import refused_at_start

from support import Ue, binding, delete, found, metrics, new_pcf_id, patch, register, wait_until

from replication_support import Writer, kafka_events


@pytest.mark.parametrize("settings, named", [
    ({"log.retention": "30"}, ["log.retention"]),          # a duration needs its unit
    ({"log.retention": "2w"}, ["log.retention"]),
    ({"store.tombstone_horizon": "1d", "store.tombstone_horizon_h": "24"},
     ["store.tombstone_horizon", "store.tombstone_horizon_h"]),
])
def test_bad_durations_and_both_horizon_keys_exit_2(tmp_path, settings, named):
    refused_at_start(tmp_path, settings, *named)


def test_durations_with_units_and_the_hours_alias_are_taken(bsfd_factory):
    """1500ms is a second and a half (events leave), 12h keeps them; the alias starts."""
    short = bsfd_factory({"store.tombstone_horizon_h": "2", "log.retention": "1500ms"})
    long = bsfd_factory({"store.tombstone_horizon": "90m", "log.retention": "12h"})
    for server in (short, long):
        for ue in (Ue(), Ue()):
            register(server.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4))
    wait_until(lambda: _metric(short, "bsf_log_trimmed_events_total") >= 1, 10,
               "an event older than 1500ms leaving the log")
    assert _metric(long, "bsf_log_trimmed_events_total") == 0
    assert _metric(long, "bsf_log_oldest_position") == 1


def _metric(server, name):
    return metrics(server).get(name, 0.0)


def _export(server, *args):
    out = server.bsfctl("export", *args).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _data_bytes(server):
    return os.stat(server.store / "data.mdb").st_size


def _churn(server, seconds, ues=20):
    """Re-registers `ues` UEs over and over (each registration replaces the UE's previous
    binding: a deregistration and a registration event) for `seconds`. Returns the count."""
    pcf = new_pcf_id()
    people = [Ue() for _ in range(ues)]
    done = 0
    deadline = time.monotonic() + seconds
    with httpx.Client(http1=False, http2=True, base_url=server.base_url, timeout=10) as client:
        while time.monotonic() < deadline:
            ue = people[done % ues]
            body = binding(supi=ue.supi, ipv4Addr=ue.ipv4, dnn=ue.dnn, pcfId=pcf)
            resp = client.post("/pcfBindings", json=body)
            assert resp.status_code == 201, resp.text
            done += 1
    return done


def _workload(server, ues):
    """Registrations, updates and deregistrations whose events are the same at any site."""
    ids = []
    for ue in ues:
        resp = server.client.post("/pcfBindings", json=binding(
            supi=ue.supi, ipv4Addr=ue.ipv4, dnn=ue.dnn, pcfFqdn="pcf-a.example.com"))
        assert resp.status_code == 201, resp.text
        ids.append(resp.headers["location"].rsplit("/", 1)[1])
    for bid in ids[::3]:
        assert patch(server.client, bid, {"pcfFqdn": "pcf-b.example.com"}).status_code == 200
    for bid in ids[1::3]:
        assert delete(server.client, bid).status_code == 204
    return ids


def _normalized(events):
    """What two sites running the same workload share: no ids, clocks or timestamps."""
    out = []
    for ev in events:
        ev = dict(ev)
        for key in ("hlc", "bindingId", "createdHlc", "replacedBy", "time"):
            ev.pop(key, None)
        out.append(json.dumps(ev, sort_keys=True))
    return out


def test_short_retention_bounds_the_log_and_the_file(bsfd_factory):
    server = bsfd_factory({"log.retention": "2s", "store.tombstone_horizon": "2s"})
    _churn(server, 4)
    wait_until(lambda: _metric(server, "bsf_log_trimmed_events_total") > 0, 15,
               "the first events to leave the log")
    # the gauge follows at the retention thread's next round (every second)
    first_oldest = wait_until(lambda: _metric(server, "bsf_log_oldest_position") > 1 and
                              _metric(server, "bsf_log_oldest_position"), 5,
                              "the oldest position advancing")
    # Steady churn: after the retention window the file stops growing, the oldest position
    # advances and the log holds about a window's worth of events.
    _churn(server, 6)
    mid = _data_bytes(server)
    mid_events = _churn(server, 8)
    end = _data_bytes(server)
    later_oldest = _metric(server, "bsf_log_oldest_position")
    assert later_oldest > first_oldest + mid_events, (first_oldest, later_oldest, mid_events)
    # 8 s of churn without trimming would add ~2 events * mid_events * ~300 bytes.
    assert end - mid <= max(mid // 10, 256 * 1024), (mid, end, mid_events)
    in_log = _metric(server, "bsf_log_events")
    total = _metric(server, "bsf_store_log_position")
    assert in_log < total / 2, (in_log, total)
    age = _metric(server, "bsf_log_oldest_age_seconds")
    assert 0 < age < 10, age
    assert _metric(server, "bsf_log_bytes") > 0
    # the replaced bindings' tombstones leave too (store.tombstone_horizon = 2s)
    assert _metric(server, "bsf_store_tombstones_removed_total") > mid_events / 2


def test_archive_and_live_log_equal_a_store_that_never_trimmed(bsfd_factory, tmp_path):
    archive = tmp_path / "archive"
    trimmed = bsfd_factory({"log.retention": "8s", "log.archive_dir": str(archive)})
    whole = bsfd_factory({"log.retention": "0"})
    ues = [Ue() for _ in range(30)]
    started = time.monotonic()
    _workload(trimmed, ues)
    before = _export(trimmed)  # nothing has left the log yet
    assert _metric(trimmed, "bsf_log_oldest_position") == 1
    assert time.monotonic() - started < 8
    _workload(whole, ues)
    # A late event keeps the log non-empty and moves the front past the workload.
    time.sleep(max(0.0, started + 8.5 - time.monotonic()))
    late = Ue()
    for server in (trimmed, whole):
        register(server.client, binding(supi=late.supi, ipv4Addr=late.ipv4, dnn=late.dnn,
                                        pcfFqdn="pcf-a.example.com"))
    wait_until(lambda: _metric(trimmed, "bsf_log_oldest_position") > len(before), 15,
               "the workload leaving the log")
    assert _metric(trimmed, "bsf_log_archive_segments") >= 1
    assert _metric(trimmed, "bsf_log_archive_bytes") > 0
    assert _metric(trimmed, "bsf_log_trimmed_events_total") >= len(before)
    assert sorted(p.name for p in archive.iterdir() if p.name.endswith(".tmp")) == []

    # The live log alone no longer has them; with the archive the history is whole.
    live_only = trimmed.bsfctl("export")
    assert "neither in the log nor in" in live_only.stderr
    after = _export(trimmed, "--archive", archive)
    assert after[:len(before)] == before
    assert _normalized(after) == _normalized(_export(whole))

    # history over archive + live equals the untrimmed store's
    for ue in ues[:6]:
        hist = [json.loads(line) for line in trimmed.bsfctl(
            "history", "--supi", ue.supi, "--json", "--archive", archive).stdout.splitlines()]
        assert hist, ue.supi
        assert _normalized(hist) == _normalized(whole.history(supi=ue.supi))

    # rebuild from archive + live gives the live digest; from the live log alone it cannot
    rebuilt = trimmed.bsfctl("rebuild", "--out", tmp_path / "rebuilt", "--archive", archive)
    assert rebuilt.stdout.strip() == trimmed.digest()
    partial = trimmed.bsfctl("rebuild", "--out", tmp_path / "partial")
    assert partial.stdout.strip() != trimmed.digest()
    whole_rebuilt = whole.bsfctl("rebuild", "--out", tmp_path / "whole")
    assert whole_rebuilt.stdout.strip() == whole.digest()


def test_kill9_while_trimming_loses_nothing(bsfd_factory, tmp_path):
    archive = tmp_path / "archive"
    server = bsfd_factory({"log.retention": "1s", "log.archive_dir": str(archive)})
    writer = Writer(server)
    writer.start()
    wait_until(lambda: _metric(server, "bsf_log_trimmed_events_total") > 200, 30,
               "trimming under load")
    time.sleep(0.7)
    server.kill9()
    writer.stop()
    server.start()
    acknowledged = [ue for ue, _ in writer.acknowledged]
    assert len(acknowledged) > 200
    for ue in acknowledged[::5]:
        assert found(server.client, ipv4Addr=ue.ipv4)["supi"] == ue.supi
    assert not [p for p in archive.iterdir() if p.name.endswith(".tmp")]
    # The archive and the live log: every position exactly once, nothing missing.
    done = server.bsfctl("export", "--archive", archive)
    assert "neither in the log" not in done.stderr, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    seqs = [ev["seq"] for ev in events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(events) >= len(acknowledged)
    rebuilt = server.bsfctl("rebuild", "--out", tmp_path / "rebuilt", "--archive", archive)
    assert rebuilt.stdout.strip() == server.digest()


def test_kafka_nothing_unshipped_leaves_the_log(site_factory):
    broker = site_factory.broker
    site, = site_factory.start(1, {"log.retention": "2s"})
    ues = [Ue() for _ in range(10)]
    for ue in ues:
        register(site.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4, dnn=ue.dnn))
    wait_until(lambda: _metric(site, "bsf_replication_shipper_backlog_events") == 0, 30,
               "the first events shipped")
    wait_until(lambda: _metric(site, "bsf_log_trimmed_events_total") > 0, 15,
               "shipped events leaving the log")
    shipped_through = _metric(site, "bsf_store_log_position")
    broker.stop()
    try:
        outage = [Ue() for _ in range(10)]
        for ue in outage:
            register(site.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4, dnn=ue.dnn))
        time.sleep(5)  # more than twice the retention
        assert _metric(site, "bsf_log_oldest_position") <= shipped_through + 1
        assert _metric(site, "bsf_replication_shipper_backlog_events") >= len(outage)
        events = site.bsfctl("export").stdout.splitlines()
        assert len(events) >= len(outage)
    finally:
        broker.start()
    wait_until(lambda: _metric(site, "bsf_replication_shipper_backlog_events") == 0, 60,
               "the backlog shipped after the outage")
    wait_until(lambda: _metric(site, "bsf_log_oldest_position") > shipped_through + 1, 30,
               "the shipped backlog leaving the log")
    seqs = sorted(ev["seq"] for ev in kafka_events(broker, site_factory.topics(1))
                  if ev["site"] == 1)
    assert seqs == list(range(1, len(ues) + len(outage) + 1))
