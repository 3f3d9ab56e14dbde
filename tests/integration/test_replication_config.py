"""Settings of the Kafka log backend: invalid combinations exit 2 naming the key; a store
that holds nothing cannot serve without the log; one shared topic on a stretched cluster."""

import subprocess

import pytest

from conftest import (BSFD, Bsfd, assert_no_sanitizer_report, free_ports, refused_at_start,
                      require_binary)
from replication_support import (assert_log_exact, found_everywhere, kafka_events, registration,
                                 wait_converged, wait_for)
from support import Ue, register

KAFKA = {"log.backend": "kafka", "kafka.brokers": "127.0.0.1:9"}


@pytest.mark.parametrize("settings, key", [
    ({"log.backend": "kafka"}, "kafka.brokers"),
    ({"log.backend": "zookeeper"}, "log.backend"),
    ({"log.durability": "replicated"}, "log.durability"),
    ({**KAFKA, "log.durability": "sometimes"}, "log.durability"),
    ({**KAFKA, "kafka.topic": "bad topic"}, "kafka.topic"),
    ({**KAFKA, "kafka.topic": "a", "kafka.consume_topics": "b;c"}, "kafka.consume_topics"),
    ({**KAFKA, "kafka.consume_topics": "x;" + "y;" * 17}, "kafka.consume_topics"),
    ({**KAFKA, "kafka.client_properties": "acks"}, "kafka.client_properties"),
    ({**KAFKA, "kafka.replicated_timeout_ms": "20000"}, "kafka.replicated_timeout_ms"),
    ({**KAFKA, "kafka.apply_inflight": "0"}, "kafka.apply_inflight"),
])
def test_invalid_kafka_setting_exits_2_naming_the_key(tmp_path, settings, key):
    refused_at_start(tmp_path, settings, key)


def test_empty_store_needs_the_log_to_start(tmp_path):
    """A new or wiped site must bootstrap from Kafka before it serves: no broker, no start."""
    require_binary(BSFD, "BSFD")
    server = Bsfd(tmp_path)
    port, = free_ports(1)
    server.settings.update({"log.backend": "kafka", "kafka.brokers": f"127.0.0.1:{port}"})
    done = subprocess.run(server.command(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "bootstrap" in done.stderr, done.stderr
    assert_no_sanitizer_report(done.stderr, "bsfd")


def test_one_shared_topic_on_a_stretched_cluster(site_factory):
    """Every site produces to and consumes one topic; each skips its own events."""
    topic = f"{site_factory.prefix}.shared"
    shared = {"kafka.topic": topic, "kafka.consume_topics": topic}
    a, b = (site_factory.bsfd_factory({**site_factory.settings(i, 2), **shared})
            for i in (1, 2))
    ues = [Ue() for _ in range(6)]
    for i, ue in enumerate(ues):
        register((a if i % 2 else b).client, registration(ue))
    wait_for(lambda: all(found_everywhere([a, b], ue) for ue in ues), 30, "every binding")
    wait_converged([a, b])
    assert_log_exact(kafka_events(site_factory.broker, [topic]), [a, b])
