"""Helpers of the message feed tests (docs/feed.md): feed settings on the session's Kafka
broker, a topic read back with kcat (librdkafka's CLI, Debian package `kcat`), the feed's
metrics and records grouped by transaction."""

import json
import shutil
import subprocess
import time
import uuid

import pytest

from support import metrics

CONSUME_TIMEOUT = 60.0
KCAT = shutil.which("kcat")


def new_topic():
    return f"feed-test-{uuid.uuid4().hex[:12]}"


def feed_settings(broker, topic, **extra):
    # a record waits for a new topic's leader (auto-created on first use) for up to 30 s
    settings = {"feed.enabled": "true", "feed.brokers": broker.bootstrap, "feed.topic": topic,
                "feed.message_timeout_ms": "30000"}
    settings.update({key: str(value) for key, value in extra.items()})
    return settings


def consume(broker, topic, count, timeout=CONSUME_TIMEOUT):
    """The topic's messages as (key, record) once it holds at least `count` of them."""
    assert KCAT, "kcat is missing (Debian package kcat; scripts/install-deps.sh installs it)"
    deadline = time.monotonic() + timeout
    messages = []
    while time.monotonic() < deadline:
        done = subprocess.run([KCAT, "-b", broker.bootstrap, "-C", "-t", topic, "-o", "beginning",
                               "-e", "-q", "-J", "-m", "10"],
                              capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
            if len(messages) >= count:
                return [(m["key"], json.loads(m["payload"])) for m in messages]
        time.sleep(0.5)
    pytest.fail(f"topic {topic}: {len(messages)} messages after {timeout} s, expected {count}")


def feed_metric(server, name, **labels):
    key = name + ("{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else "")
    return metrics(server)[key]


def wait_metric(server, name, predicate, timeout=30.0, **labels):
    deadline = time.monotonic() + timeout
    while True:
        value = feed_metric(server, name, **labels)
        if predicate(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def dropped_total(samples):
    return sum(v for k, v in samples.items() if k.startswith("bsf_feed_dropped_total{"))


def transactions(records):
    """{transactionId: {"request": record, "response": record}}; no id twice per kind."""
    by_id = {}
    for _key, record in records:
        kinds = by_id.setdefault(record["transactionId"], {})
        assert record["kind"] not in kinds, f"two {record['kind']} records: {record}"
        kinds[record["kind"]] = record
    return by_id
