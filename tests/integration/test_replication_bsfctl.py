"""bsfctl on the replicated log: replay from Kafka into a fresh store (from the beginning, from
an offset, from a point in time), history across every site, export as JSON lines and raw
msgpack."""

import json
import time

from replication_support import (found_everywhere, gone_everywhere, kafka_events,
                                 registration, run_bsfctl, unpack_msgpack, wait_converged,
                                 wait_for)
from support import Ue, assert_binding, assert_no_content, delete, patch, register


def _traffic(sites):
    """Registrations at every site, updates and deregistrations across sites."""
    ids, ues = [], []
    for i in range(30):
        ues.append(Ue())
        ids.append(register(sites[i % 3].client, registration(ues[-1]))[0])
    wait_for(lambda: all(found_everywhere(sites, ue) for ue in ues), 30, "every registration")
    for i in range(0, 30, 4):
        patch(sites[(i + 1) % 3].client, ids[i], {"pcfFqdn": "pcf7.example.com"})
    for i in range(0, 30, 5):
        delete(sites[(i + 2) % 3].client, ids[i])
    return ids


def test_replay_from_the_beginning_equals_the_live_digest(site_factory, tmp_path):
    sites = site_factory.start(3)
    _traffic(sites)
    digest = wait_converged(sites)
    broker, topics = site_factory.broker, ",".join(site_factory.topics(3))
    out = tmp_path / "replayed"
    done = run_bsfctl("replay", "--kafka", broker.bootstrap, "--topics", topics,
                      "--from-beginning", "--out", out)
    assert done.stdout.decode().strip() == digest
    assert b"events/s" in done.stderr, done.stderr  # progress and summary on stderr
    # the replayed store serves as a site: its digest and per-site state are the live ones
    assert run_bsfctl("--store", out, "digest").stdout.decode().strip() == digest
    stats = json.loads(run_bsfctl("--store", out, "stats", "--json").stdout)
    assert stats["events"] == len(kafka_events(broker, site_factory.topics(3)))
    # replaying into a directory that holds a store is refused
    assert run_bsfctl("replay", "--kafka", broker.bootstrap, "--topics", topics, "--out", out,
                      check=False).returncode == 2


def test_replay_from_a_time_and_from_an_offset(site_factory, tmp_path):
    a, b = site_factory.start(2)
    first = [register(a.client, registration(Ue()))[0] for _ in range(10)]
    wait_converged([a, b])
    time.sleep(0.05)
    since = int(time.time() * 1000)
    time.sleep(0.05)
    later = [register(a.client, registration(Ue()))[0] for _ in range(5)]
    wait_converged([a, b])
    broker, topic = site_factory.broker, site_factory.topics(2)[0]

    out = tmp_path / "since"
    run_bsfctl("replay", "--kafka", broker.bootstrap, "--topics", topic, "--since", since,
               "--out", out)
    replayed = {e["bindingId"] for e in
                (json.loads(line) for line in
                 run_bsfctl("--store", out, "export").stdout.decode().splitlines())}
    assert replayed == set(later)

    # from an offset: the first of the later events (offsets also count transaction markers)
    out = run_bsfctl("history", "--kafka", broker.bootstrap, "--topics", topic, "--binding",
                     later[0], "--json").stdout.decode()
    offset = json.loads(out.splitlines()[0])["offset"]
    out = tmp_path / "offset"
    run_bsfctl("replay", "--kafka", broker.bootstrap, "--topics", topic, "--offset", offset,
               "--out", out)
    stats = json.loads(run_bsfctl("--store", out, "stats", "--json").stdout)
    assert stats["liveBindings"] == len(later)
    out = tmp_path / "all"
    run_bsfctl("replay", "--kafka", broker.bootstrap, "--topics", topic, "--offset", 0,
               "--out", out)
    stats = json.loads(run_bsfctl("--store", out, "stats", "--json").stdout)
    assert stats["liveBindings"] == len(first) + len(later)


def test_history_across_sites_and_export(site_factory):
    a, b, c = site_factory.start(3)
    ue = Ue()
    first, _ = register(a.client, registration(ue))
    wait_for(lambda: found_everywhere([b], ue), 30, "the registration at B")
    assert_binding(patch(b.client, first, {"pcfFqdn": "pcf8.example.com"}), 200)
    wait_for(lambda: found_everywhere([c], ue, pcf="pcf8.example.com"), 30, "the update at C")
    assert_no_content(delete(c.client, first))
    wait_for(lambda: gone_everywhere([b], ue), 30, "the deregistration at B")
    second, _ = register(b.client, registration(ue))
    wait_converged([a, b, c])
    broker, topics = site_factory.broker, ",".join(site_factory.topics(3))

    # the local log of any site holds every site's events
    local = c.history(ue_addr=ue.ipv4)
    assert [(e["type"], e["site"]) for e in local] == [
        ("BindingRegistered", 1), ("BindingUpdated", 2), ("BindingDeregistered", 3),
        ("BindingRegistered", 2)]
    # the same from the topics, in HLC order, with their topic and offset
    out = run_bsfctl("history", "--kafka", broker.bootstrap, "--topics", topics, "--ue-addr",
                     ue.ipv4, "--json").stdout.decode()
    remote = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [(e["type"], e["site"], e["seq"]) for e in remote] == \
        [(e["type"], e["site"], e["seq"]) for e in local]
    assert all(e["topic"].startswith(site_factory.prefix) and e["offset"] >= 0 for e in remote)
    for option, value in (("--supi", ue.supi), ("--binding", second)):
        out = run_bsfctl("history", "--kafka", broker.bootstrap, "--topics", topics, option,
                         value, "--json").stdout.decode()
        assert len(out.splitlines()) == (4 if option == "--supi" else 1)
    # a time range
    cut = local[2]["hlc"] >> 16
    out = run_bsfctl("history", "--kafka", broker.bootstrap, "--topics", topics, "--supi",
                     ue.supi, "--since", cut, "--json").stdout.decode()
    assert [json.loads(line)["type"] for line in out.splitlines()] == \
        ["BindingDeregistered", "BindingRegistered"]

    # export: JSON lines (the event contract) from the topics and from a store agree
    kafka = kafka_events(broker, site_factory.topics(3))
    store = [json.loads(line) for line in a.bsfctl("export").stdout.splitlines()]
    key = lambda e: (e["site"], e["seq"])
    assert sorted(kafka, key=key) == sorted(store, key=key)
    assert {e["type"] for e in kafka} == {"BindingRegistered", "BindingUpdated",
                                          "BindingDeregistered"}
    for e in kafka:
        assert e["v"] == 1 and isinstance(e["hlc"], int) and len(e["bindingId"]) == 32
    # raw msgpack: the same events, one map after the other
    raw = run_bsfctl("export", "--kafka", broker.bootstrap, "--topics", topics, "--format",
                     "msgpack").stdout
    decoded, pos = [], 0
    while pos < len(raw):
        event, pos = unpack_msgpack(raw, pos)
        decoded.append(event)
    assert sorted(decoded, key=key) == sorted(kafka, key=key)
    # a time-filtered export
    out = run_bsfctl("--store", a.store, "export", "--since", cut).stdout.decode()
    assert len(out.splitlines()) == 2
