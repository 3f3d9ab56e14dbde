"""An event of a newer version than this release reads, in another site's topic
(docs/replication.md, "Events of a newer version"; docs/events.md, "Versions"): the applier
holds that topic at the event's offset (nothing of it applied, its stored position not moved
past it) while the other sites' topics keep applying; `bsf_replication_topic_held_version`,
GET /health/ready and one WARN line say so. A restart with a release that reads the version
applies the topic from the held offset on, and nothing is lost.

The newer version is version 3, crafted from a real version-2 event of site 1 as "site 3"
(not running) and produced with kcat. The release that reads it is played by the same
binaries with BSF_TEST_EVENT_NEXT_VERSION=1 (version 3 then reads as version 2's form)."""

import json
import subprocess
import time
import uuid

from conftest import kafka_broker, site_factory  # noqa: F401
from replication_support import (found_everywhere, pack_msgpack, registration, unpack_msgpack,
                                 wait_converged, wait_for)
from support import Ue, discover, metrics, register
from test_metrics_format import promtool_check

HELD_LINE = "the topic is held there"


def first_event(broker, topic):
    """(headers text, decoded event) of the topic's first message."""
    out = subprocess.run(["kcat", "-C", "-b", broker.bootstrap, "-t", topic, "-o", "beginning",
                          "-c", "1", "-e", "-q", "-f", "%h|%s"], capture_output=True,
                         timeout=60, check=True).stdout
    headers, _, raw = out.partition(b"|")
    event, end = unpack_msgpack(raw)
    assert end == len(raw), "one event"
    return headers.decode(), event


def crafted(template, seq, ue, version):
    """A registration of `ue` by site 3, its `seq`-th event, in `version`."""
    event = dict(template, v=version, site=3, seq=seq, hlc=int(time.time() * 1000) << 16,
                 bindingId=f"0003{seq:012x}{uuid.uuid4().hex[:16]}")
    event["binding"] = dict(template["binding"], supi=ue.supi, ipv4Addr=ue.ipv4)
    return pack_msgpack(event)


def produce(broker, topic, seq, data, tmp_path):
    """One message as the shipper writes it (its headers), not in a transaction."""
    path = tmp_path / f"event.{seq}"
    path.write_bytes(data)
    subprocess.run(["kcat", "-P", "-b", broker.bootstrap, "-t", topic,
                    "-H", "event-type=BindingRegistered", "-H", "site=3", "-H", f"seq={seq}",
                    str(path)], check=True, capture_output=True, timeout=60)


def held(site, topic):
    return metrics(site).get(f'bsf_replication_topic_held_version{{topic="{topic}"}}')


def position(site, topic):
    return metrics(site).get(f'bsf_replication_topic_position{{topic="{topic}"}}')


def test_newer_event_holds_its_topic_until_an_upgrade(site_factory, kafka_broker, tmp_path,
                                                      monkeypatch):
    a, b = site_factory.start(2, {"events.write_version": "2"}, total=3)
    first = Ue()
    assert register(a.client, registration(first))[0]
    wait_converged([a, b])
    topic1, _, topic3 = site_factory.topics(3)
    _, template = first_event(kafka_broker, topic1)
    assert template["v"] == 2 and template["type"] == "BindingRegistered", template
    assert held(b, topic3) == 0 and held(b, topic1) == 0

    newer, after = Ue(), Ue()
    produce(kafka_broker, topic3, 1, crafted(template, 1, newer, 3), tmp_path)
    produce(kafka_broker, topic3, 2, crafted(template, 2, after, 2), tmp_path)
    for site in (a, b):
        wait_for(lambda: held(site, topic3) == 3, 60, "topic 3 held at version 3")
        assert position(site, topic3) == 0  # not moved past the held event
        assert held(site, topic1) == 0

    # the other sites' topics keep applying
    later = Ue()
    assert register(a.client, registration(later))[0]
    wait_for(lambda: found_everywhere([b], later), 60, "a's new binding at b")
    # nothing of the held topic is applied, not even the version-2 event behind it
    for site in (a, b):
        assert discover(site.client, ipv4Addr=newer.ipv4).status_code == 204
        assert discover(site.client, ipv4Addr=after.ipv4).status_code == 204
        assert position(site, topic3) == 0 and held(site, topic3) == 3

    resp = b.ops.get("/health/ready")
    assert resp.status_code == 200, resp.text
    assert resp.json()["replicationHeld"] == [{"topic": topic3, "offset": 0, "version": 3}]
    text = b.ops.get("/metrics").text
    assert "# TYPE bsf_replication_topic_held_version gauge" in text
    promtool_check(text)
    time.sleep(2)  # many polls later: still one line
    lines = [line for line in b.stderr_text().splitlines() if HELD_LINE in line]
    assert len(lines) == 1 and "WARN" in lines[0] and topic3 in lines[0], lines
    assert "version 3" in lines[0] and "offset 0" in lines[0], lines

    # the upgrade: b restarts with a release that reads version 3
    monkeypatch.setenv("BSF_TEST_EVENT_NEXT_VERSION", "1")
    b.restart()
    wait_for(lambda: found_everywhere([b], newer) and found_everywhere([b], after), 60,
             "the held events applied at b after its upgrade")
    assert held(b, topic3) == 0 and position(b, topic3) == 2
    assert "replicationHeld" not in b.ops.get("/health/ready").json()
    assert not [line for line in b.stderr_text().splitlines() if HELD_LINE in line]
    # a, not upgraded yet, still holds; then it is upgraded too and the sites agree
    assert held(a, topic3) == 3 and discover(a.client, ipv4Addr=after.ipv4).status_code == 204
    a.restart()
    digest = wait_converged([a, b])
    assert digest and held(a, topic3) == 0 and position(a, topic3) == 2
    for ue in (first, newer, after, later):
        assert found_everywhere([a, b], ue), ue.supi
    history = b.history(supi=newer.supi)
    assert [e["type"] for e in history] == ["BindingRegistered"], json.dumps(history)
