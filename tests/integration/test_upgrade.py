"""Upgrading from the previous release (issue 15 §3, docs/operations.md "Upgrading"): the
store its bsfd wrote (fixtures/upgrade/store-v1.mdb.zst, version-1 events, made by
fixtures/upgrade/regenerate.sh from the commit upgrade_support.PREVIOUS_COMMIT) is read by this
bsfctl and served by this bsfd: every binding found, the digest the previous release computed,
equal to a rebuild of its log; then version-2 events written beside the version-1 ones read
back to the same projections."""

import json
import subprocess

import pytest

from conftest import Bsfd, run_bsfctl
from support import assert_gone, assert_not_found, binding, found, patch, register
from ue_support import found_ue
from upgrade_support import FIXTURE_DIR, QUIET

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
