"""bsfctl against the store of a running bsfd: history (text and JSON) by binding id, SUPI
and UE address; digest stable across restarts; rebuild reproduces the live digest; stats."""

import json
import re

import pytest

import openapi
from conftest import run_bsfctl
from support import (Ue, assert_binding, assert_no_content, binding, delete, new_pcf_id, patch,
                     register)

SITE = 7
HEX = re.compile(r"[0-9a-fA-F]{16,}")


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    return module_bsfd_factory({"site.id": SITE})


def assert_event_shape(event, binding_id):
    assert event["type"] in ("BindingRegistered", "BindingUpdated", "BindingDeregistered"), event
    assert event["bindingId"] == binding_id, event
    assert event["site"] == SITE, event
    assert isinstance(event["seq"], int), event
    assert "hlc" in event, event
    assert openapi.is_date_time(event["time"]), event
    if event["type"] == "BindingDeregistered":
        assert isinstance(event["reason"], str), event
    else:
        openapi.validate(event["binding"], "PcfBinding")


def test_history_of_a_binding_as_json(bsfd, client):
    ue, moved = Ue(), Ue()
    binding_id, stored = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    updated = assert_binding(patch(client, binding_id, {"ipv4Addr": moved.ipv4}), 200)
    assert_no_content(delete(client, binding_id))
    events = bsfd.history(binding=binding_id)
    assert [e["type"] for e in events] == ["BindingRegistered", "BindingUpdated", "BindingDeregistered"]
    for event in events:
        assert_event_shape(event, binding_id)
    assert events[0]["binding"] == stored
    assert events[1]["binding"] == updated
    assert events[2]["reason"] == "pcf_request"
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs)), f"seq must increase: {seqs}"


def test_history_of_a_binding_as_text(bsfd, client):
    ue = Ue()
    binding_id, _ = register(client, binding(ipv4Addr=ue.ipv4))
    assert_no_content(delete(client, binding_id))
    out = bsfd.bsfctl("history", "--binding", binding_id).stdout
    assert binding_id in out
    assert "BindingRegistered" in out and "BindingDeregistered" in out, out


def test_history_of_a_subscriber(bsfd, client):
    ue, second, stranger = Ue(), Ue(), Ue()
    first_id, _ = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    second_id, _ = register(client, binding(ipv6Prefix=second.ipv6, supi=ue.supi, dnn="ims"))
    stranger_id, _ = register(client, binding(ipv4Addr=stranger.ipv4, supi=stranger.supi))
    events = bsfd.history(supi=ue.supi)
    assert {e["bindingId"] for e in events} == {first_id, second_id}
    assert all(e["type"] == "BindingRegistered" for e in events), events
    assert all(e["binding"]["supi"] == ue.supi for e in events), events
    out = bsfd.bsfctl("history", "--supi", ue.supi).stdout
    assert first_id in out and second_id in out and stranger_id not in out, out


def test_history_of_an_address_shows_a_collision_replacement(bsfd, client):
    ue = Ue()
    loser = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-a.example.com")
    winner = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-b.example.com")
    loser_id, _ = register(client, loser)
    winner_id, _ = register(client, winner)
    events = bsfd.history(ue_addr=ue.ipv4)
    summary = [(e["type"], e["bindingId"]) for e in events]
    # the replacement and the new registration are one transaction: their order is free
    assert summary[0] == ("BindingRegistered", loser_id), summary
    assert sorted(summary[1:]) == [("BindingDeregistered", loser_id), ("BindingRegistered", winner_id)], summary
    for event in events:
        assert_event_shape(event, event["bindingId"])
    replacement, = [e for e in events if e["type"] == "BindingDeregistered"]
    assert replacement["reason"] == "replaced_by_collision"
    assert winner_id in json.dumps(replacement), replacement
    out = bsfd.bsfctl("history", "--ue-addr", ue.ipv4).stdout
    assert loser_id in out and winner_id in out and "replaced_by_collision" in out, out


def test_history_of_an_unknown_binding_is_empty(bsfd):
    assert bsfd.history(binding="0" * 32) == []


def test_digest_is_stable_across_restarts(bsfd, client):
    before = bsfd.digest()
    assert HEX.fullmatch(before), before
    register(client, binding(ipv4Addr=Ue().ipv4))
    live = bsfd.digest()
    assert live != before
    bsfd.restart()
    assert bsfd.digest() == live
    bsfd.kill9()
    assert bsfd.digest() == live          # bsfctl reads the store of a dead server too
    bsfd.start()
    assert bsfd.digest() == live


def test_rebuild_reproduces_the_live_digest(bsfd, tmp_path):
    client = bsfd.client
    ue, other = Ue(), Ue()
    binding_id, _ = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    assert_binding(patch(client, binding_id, {"ipv6Prefix": ue.ipv6}), 200)
    register(client, binding(ipv4Addr=other.ipv4))
    live = bsfd.digest()
    out_dir = tmp_path / "rebuilt"
    out_dir.mkdir()
    out = bsfd.bsfctl("rebuild", "--out", out_dir).stdout
    printed = HEX.findall(out)
    assert printed and printed[-1] == live, out
    assert run_bsfctl(out_dir, "digest").stdout.strip() == live
    assert bsfd.digest() == live


def test_stats(bsfd, client):
    register(client, binding(ipv4Addr=Ue().ipv4))
    stats = json.loads(bsfd.bsfctl("stats", "--json").stdout)
    live = stats["liveBindings"] if "liveBindings" in stats else stats["bindings"]
    assert live == bsfd.count(), stats
    assert stats["events"] >= live, stats
    sizes = [value for key, value in stats.items() if "bytes" in key.lower()]
    assert sizes and all(isinstance(v, int) and v >= 0 for v in sizes) and max(sizes) > 0, stats
    text = bsfd.bsfctl("stats").stdout
    assert str(live) in text and str(stats["events"]) in text, text
