"""Upgrading from the previous release (issue 15 §3, docs/operations.md "Upgrading"): the
store its bsfd wrote (fixtures/upgrade/store-v1.mdb.zst, version-1 events, made by
fixtures/upgrade/regenerate.sh from the commit upgrade_support.PREVIOUS_COMMIT) is read by this
bsfctl and served by this bsfd: every binding found, the digest the previous release computed,
equal to a rebuild of its log; then version-2 events written beside the version-1 ones read
back to the same projections. The record migration at start (migrations/record_pass.h) logs its
progress (records done of the total, the rate) and, killed with SIGKILL midway, resumes from its
last batch to the same digest."""

import json
import re
import subprocess
import time

import pytest

from conftest import Bsfd, run_bsfctl
from support import assert_gone, assert_not_found, binding, found, patch, register
from ue_support import found_ue
from upgrade_support import FIXTURE_DIR, QUIET, PreviousBsfd, previous_binaries

EXPECTED = json.loads((FIXTURE_DIR / "expected.json").read_text())


def unpack_fixture(store):
    subprocess.run(["zstd", "-q", "-d", "-f", str(FIXTURE_DIR / "store-v1.mdb.zst"), "-o",
                    str(store / "data.mdb")], check=True)


def rebuilt_digest(store, out):
    lines = run_bsfctl(store, "rebuild", "--out", out).stdout.split()
    return lines[0]


def exported(store, binding_id=None):
    events = [json.loads(line) for line in run_bsfctl(store, "export").stdout.splitlines()]
    return [e for e in events if binding_id is None or e["bindingId"] == binding_id]


def new_ue(n):
    """Addresses and identities outside the fixture's (its UEs are numbered from 1)."""
    return f"10.200.0.{n}", f"imsi-0010199999{n:05d}"


def digest(store):
    return run_bsfctl(store, "digest").stdout.strip()


def assert_history_found(client):
    for entry in EXPECTED["live"]:
        got = found(client, ipv4Addr=entry["ipv4"])
        assert got["supi"] == entry["supi"] and got["pcfFqdn"] == entry["pcfFqdn"], (entry, got)
    for entry in EXPECTED["gone"]:
        assert_not_found(client, ipv4Addr=entry["ipv4"])
        assert_gone(client, entry["id"])
    for entry in EXPECTED["ue"]:
        assert [b["supi"] for b in found_ue(client, supi=entry["supi"])] == [entry["supi"]]
    assert found_ue(client, supi=EXPECTED["gone_ue"]["supi"]) == []
    for body in EXPECTED["mbs"]:
        resp = client.get("/pcf-mbs-bindings",
                          params={"mbs-session-id": json.dumps(body["mbsSessionId"])})
        assert resp.status_code == 200 and resp.json() == [body], resp.text


@pytest.fixture
def old_store_server(tmp_path):
    (tmp_path / "site").mkdir()
    server = Bsfd(tmp_path / "site", {**QUIET, "site.id": EXPECTED["site"]})
    unpack_fixture(server.store)
    yield server
    if server.running:
        server.stop()


def test_store_of_the_previous_release_is_read_and_served(old_store_server, tmp_path):
    server = old_store_server
    # bsfctl of this release reads it as it is (read-only: nothing migrated yet)
    assert digest(server.store) == EXPECTED["digest"]
    assert rebuilt_digest(server.store, tmp_path / "rebuilt") == EXPECTED["digest"]
    history = exported(server.store)
    assert len(history) > 40 and {event["v"] for event in history} == {1}
    server.start()
    assert_history_found(server.client)
    assert server.count() == len(EXPECTED["live"])
    assert digest(server.store) == EXPECTED["digest"]
    # a new registration and an update of an old binding beside the old events
    ipv4, supi = new_ue(1)
    register(server.client, binding(ipv4Addr=ipv4, supi=supi))
    old = EXPECTED["live"][10]
    assert patch(server.client, old["id"], {"pcfFqdn": "pcf3.example.com"}).status_code == 200
    assert server.count() == len(EXPECTED["live"]) + 1
    server.stop()
    assert digest(server.store) == rebuilt_digest(server.store, tmp_path / "rebuilt2")
    assert {event["v"] for event in exported(server.store)} == {1}, "events.write_version 1"


def test_version_2_events_beside_the_previous_release_s(old_store_server, tmp_path):
    server = old_store_server
    server.settings["events.write_version"] = "2"
    server.start()
    ipv4, supi = new_ue(2)
    new_id, _ = register(server.client, binding(ipv4Addr=ipv4, supi=supi))
    old = EXPECTED["live"][0]  # registered and updated in version 1
    assert patch(server.client, old["id"], {"pcfFqdn": "pcf3.example.com"}).status_code == 200
    versions = [event["v"] for event in exported(server.store, old["id"])]
    assert versions == [1, 1, 2], versions
    new_events = exported(server.store, new_id)
    assert [event["v"] for event in new_events] == [2], new_events
    assert "createdHlc" not in new_events[0] and "senderTs" not in new_events[0], new_events
    # bsfctl history decodes both versions to the same form
    shown = server.history(binding=old["id"])
    assert [e["type"] for e in shown] == ["BindingRegistered", "BindingUpdated",
                                          "BindingUpdated"], shown
    assert shown[2]["binding"]["pcfFqdn"] == "pcf3.example.com"
    server.stop()
    # the projections a rebuild makes of the mixed log are the served ones
    assert digest(server.store) == rebuilt_digest(server.store, tmp_path / "rebuilt")
    # and the store serves on after a restart, with either write version
    server.settings["events.write_version"] = "1"
    server.start()
    assert found(server.client, ipv4Addr=old["ipv4"])["pcfFqdn"] == "pcf3.example.com"
    assert found(server.client, ipv4Addr=ipv4)["supi"] == supi
    assert server.count() == len(EXPECTED["live"]) + 1


MIGRATION_START = re.compile(r"record migration \(every record in format 3, (\d+) per "
                             r"transaction\): (starting|resuming) at (\d+) of (\d+) records")
MIGRATION_STEP = re.compile(r"record migration: (\d+) of (\d+) records \((\d+) %\), "
                            r"(\d+) records/s")
MIGRATION_DONE = re.compile(r"record migration done: (\d+) records, (\d+) rewritten in "
                            r"format 3, in ([\d.]+) s")


def migration_log(text):
    """(start, [steps], done) of one run's record migration lines, as numbers."""
    start = [(int(b), how, int(at), int(total)) for b, how, at, total in
             MIGRATION_START.findall(text)]
    steps = [tuple(int(x) for x in step[:2]) for step in MIGRATION_STEP.findall(text)]
    done = [(int(n), int(rewritten)) for n, rewritten, _ in MIGRATION_DONE.findall(text)]
    assert len(start) <= 1 and len(done) <= 1, text[-3000:]
    return (start[0] if start else None), steps, (done[0] if done else None)


def test_record_migration_logs_its_progress(old_store_server):
    """The previous release wrote every record in format 2: the migration rewrites them all,
    in batches of store.migration_batch, logging done / total and the rate as it goes."""
    server = old_store_server
    server.settings["store.migration_batch"] = "4"
    server.start()
    start, steps, done = migration_log(server.stderr_text())
    batch, how, at, total = start
    assert (batch, how, at) == (4, "starting", 0) and total > len(EXPECTED["live"]), start
    assert steps and all(0 < n < total and t == total for n, t in steps), steps
    assert [n for n, _ in steps] == sorted({n for n, _ in steps}), steps
    assert done == (total, total), done  # every record was format 2
    assert_history_found(server.client)
    assert digest(server.store) == EXPECTED["digest"]
    server.restart()  # done once: nothing to migrate any more
    assert "record migration" not in server.stderr_text()
    assert digest(server.store) == EXPECTED["digest"]


def wait_for_line(path, pattern, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found_line = pattern.findall(path.read_text(errors="replace"))
        if found_line:
            return found_line
        assert proc.poll() is None, path.read_text(errors="replace")[-3000:]
        time.sleep(0.005)
    raise AssertionError(f"no {pattern.pattern} in {path}")


def test_record_migration_killed_midway_resumes(tmp_path):
    """A store the previous release filled, migrated one record per transaction by this
    release, SIGKILLed after its first progress line: the next start resumes at the last
    committed batch, finishes, and the digest is the one the store had before."""
    bsfd_previous, _ = previous_binaries()
    (tmp_path / "site").mkdir()
    server = PreviousBsfd(tmp_path / "site", QUIET, binary=bsfd_previous)
    server.start()
    count = 1500
    for i in range(count):
        register(server.client, binding(ipv4Addr=f"10.60.{i // 256}.{i % 256}",
                                        supi=f"imsi-00101{i:010d}"))
    server.stop()
    before = digest(server.store)

    server.binary = None  # this release from here on
    server.settings["store.migration_batch"] = "1"
    err_path = tmp_path / "killed.stderr"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(server.command(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        seen = wait_for_line(err_path, MIGRATION_STEP, proc)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    killed_at, total = (int(x) for x in seen[-1][:2])
    assert 0 < killed_at < total and total >= count, seen
    assert not MIGRATION_DONE.findall(err_path.read_text(errors="replace"))
    assert digest(server.store) == before  # a half-migrated store reads the same

    server.start()
    start, _, done = migration_log(server.stderr_text())
    _, how, at, resumed_total = start
    assert how == "resuming" and killed_at <= at < total and resumed_total == total, start
    assert done == (total, total - at), done  # the rest rewritten, nothing twice
    assert server.count() == count
    for i in (0, count // 2, count - 1):
        assert found(server.client, ipv4Addr=f"10.60.{i // 256}.{i % 256}")["supi"] == \
            f"imsi-00101{i:010d}"
    server.stop()
    assert digest(server.store) == before
