"""The message feed for monitoring (seed 3.43, docs/feed.md): a copy of every SBI request and
response goes to a Kafka topic, with its metadata; the feed never slows or fails a request.

Runs against the session's real Kafka broker (`kafka_broker`), one topic per test, read back
with kcat (librdkafka's CLI, Debian package `kcat`).
"""

import json
import re
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import free_ports, refused_at_start
from feed_support import (CONSUME_TIMEOUT, consume, dropped_total, feed_metric, feed_settings,
                          metrics, new_topic, transactions, wait_metric)
from support import (API_PATH, Ue, binding, delete, discover, h2_request, location_id, patch,
                     post_binding, wait_until)

NOWHERE = "192.0.2.1"  # a UE address nobody registers: discovery answers 204


def find(by_id, method, path, status):
    matches = [t for t in by_id.values()
               if t["request"]["method"] == method and t["request"]["path"] == path
               and t.get("response", {}).get("status") == status]
    assert len(matches) == 1, f"{method} {path} {status}: {len(matches)} transactions"
    return matches[0]


# ---- what is copied --------------------------------------------------------------------------

def test_every_request_and_response_is_copied_with_its_metadata(kafka_broker, bsfd_factory):
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic))
    client = server.client
    ue = Ue()
    before_ms = int(time.time() * 1000) - 1000
    correlation = f"imsi-{ue.supi[5:]}"
    body = binding(supi=ue.supi, ipv4Addr=ue.ipv4)
    sent = []  # the httpx responses, in order

    def check(resp, status):
        assert resp.status_code == status, resp.text
        sent.append(resp)
        return resp

    binding_id = location_id(check(post_binding(client, body, headers={
        "3gpp-sbi-correlation-info": correlation}), 201))
    check(discover(client, ipv4Addr=ue.ipv4), 200)
    check(discover(client, ipv4Addr=Ue().ipv4), 204)
    check(patch(client, binding_id, {"pcfFqdn": "pcf2.example.com"}), 200)
    check(client.post("/pcfBindings", content=b"{not json",
                      headers={"content-type": "application/json"}), 400)
    check(client.get("/nowhere"), 404)
    check(delete(client, binding_id), 204)
    check(delete(client, binding_id), 404)
    after_ms = int(time.time() * 1000) + 1000

    records = consume(kafka_broker, topic, 2 * len(sent))
    assert len(records) == 2 * len(sent), [r for _, r in records]
    by_id = transactions(records)
    assert len(by_id) == len(sent)
    for http in sent:
        txn = find(by_id, http.request.method, http.request.url.raw_path.decode(), http.status_code)
        request, response = txn["request"], txn["response"]
        for record in (request, response):
            assert record["version"] == 1
            assert record["protocol"] == "sbi" and record["direction"] == "ingress"
            assert record["site"] == 1
            assert record["local"] == f"127.0.0.1:{server.sbi_port}"
            assert re.fullmatch(r"127\.0\.0\.1:\d+", record["peer"]), record
            assert before_ms <= record["receivedMs"] <= after_ms
        assert request["kind"] == "request" and "status" not in request and "sentMs" not in request
        assert response["kind"] == "response"
        assert response["peer"] == request["peer"]
        assert request["receivedMs"] == response["receivedMs"] <= response["sentMs"] <= after_ms
        # the response as the client got it
        assert response.get("payload", "").encode() == http.content
        response_headers = dict(response.get("headers", []))
        if http.content:
            assert response_headers["content-type"] == http.headers["content-type"]
        if "location" in http.headers:
            assert response_headers["location"] == http.headers["location"]
        # the request as the client sent it
        request_headers = dict(request["headers"])
        assert request_headers[":authority"] == f"127.0.0.1:{server.sbi_port}"
        assert request.get("payload", "").encode() == http.request.content
        if http.request.content:
            assert request["payloadLength"] == len(http.request.content)
            assert request["payloadEncoding"] == "utf-8"

    register = find(by_id, "POST", f"{API_PATH}/pcfBindings", 201)
    assert register["request"]["correlationInfo"] == correlation
    assert register["response"]["correlationInfo"] == correlation
    assert dict(register["request"]["headers"])["3gpp-sbi-correlation-info"] == correlation
    assert "bindingId" not in register["request"]           # not known yet
    assert register["response"]["bindingId"] == binding_id  # from the Location
    for method, status in (("PATCH", 200), ("DELETE", 204), ("DELETE", 404)):
        txn = find(by_id, method, f"{API_PATH}/pcfBindings/{binding_id}", status)
        assert txn["request"]["bindingId"] == txn["response"]["bindingId"] == binding_id
    lookup = find(by_id, "GET", f"{API_PATH}/pcfBindings?ipv4Addr={ue.ipv4}", 200)
    assert "bindingId" not in lookup["request"] and "correlationInfo" not in lookup["request"]

    # keys: the correlation info, else the binding id, else the transaction id
    for key, record in records:
        expected = record.get("correlationInfo") or record.get("bindingId") or record["transactionId"]
        assert key == expected, (key, record)

    requests = feed_metric(server, "bsf_feed_offered_total", protocol="sbi", direction="ingress",
                           kind="request")
    responses = feed_metric(server, "bsf_feed_offered_total", protocol="sbi", direction="ingress",
                            kind="response")
    assert requests == responses == len(sent)
    assert wait_metric(server, "bsf_feed_sent_total", lambda v: v == 2 * len(sent)) == 2 * len(sent)
    samples = metrics(server)
    assert dropped_total(samples) == 0
    assert samples["bsf_feed_delivery_failures_total"] == 0
    assert samples["bsf_feed_queue_depth"] == 0


def test_copy_payload_off_leaves_bodies_out(kafka_broker, bsfd_factory):
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic, **{"feed.copy_payload": "false"}))
    ue = Ue()
    resp = post_binding(server.client, binding(ipv4Addr=ue.ipv4))
    assert resp.status_code == 201
    by_id = transactions(consume(kafka_broker, topic, 2))
    (txn,) = by_id.values()
    for record, http_body in ((txn["request"], resp.request.content), (txn["response"], resp.content)):
        assert "payload" not in record and "payloadEncoding" not in record, record
        assert record["payloadLength"] == len(http_body) > 0
        assert "content-type" in dict(record["headers"])
    assert txn["response"]["status"] == 201
    assert txn["response"]["bindingId"] == location_id(resp)


def test_large_bodies_are_copied_up_to_the_payload_bound(kafka_broker, bsfd_factory):
    """A record larger than a queue cell takes its own allocation; a body longer than
    feed.max_payload_bytes is cut, and the record says so."""
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic, **{"feed.max_payload_bytes": 2048}))
    ue = Ue()
    medium = binding(ipv4Addr=ue.ipv4, vendorExtension="m" * 1500)  # unknown member: ignored
    large = binding(ipv4Addr=Ue().ipv4, vendorExtension="l" * 6000)
    for body in (medium, large):
        assert post_binding(server.client, body).status_code == 201
    by_id = transactions(consume(kafka_broker, topic, 4))
    requests = sorted((t["request"] for t in by_id.values()), key=lambda r: r["payloadLength"])
    sent = [json.dumps(body).encode() for body in (medium, large)]
    assert requests[0]["payloadLength"] == len(sent[0]) > 1024
    assert requests[0]["payload"].encode() == sent[0]
    assert "truncated" not in requests[0]
    assert requests[1]["payloadLength"] == len(sent[1])
    assert requests[1]["payload"].encode() == sent[1][:2048]
    assert requests[1]["truncated"] is True
    samples = metrics(server)
    assert dropped_total(samples) == 0
    assert samples["bsf_feed_queue_overflow_bytes"] == 0


def test_requests_refused_before_the_handler_are_copied(kafka_broker, bsfd_factory):
    """413 and 431 are answered by the HTTP/2 layer; their request line is still copied."""
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic))
    path = f"{API_PATH}/pcfBindings"
    too_large = h2_request(server.sbi_port, "POST", path,
                           [("content-type", "application/json"), ("content-length", "99999999")],
                           body=b"{}", end_stream=False)
    assert too_large.status == 413
    too_many = h2_request(server.sbi_port, "POST", path,
                          [("content-type", "application/json")]
                          + [(f"x-pad-{i}", "v" * 1000) for i in range(20)], body=b"{}")
    assert too_many.status == 431
    by_id = transactions(consume(kafka_broker, topic, 4))
    assert sorted(t["response"]["status"] for t in by_id.values()) == [413, 431]
    for txn in by_id.values():
        assert txn["request"]["method"] == "POST" and txn["request"]["path"] == path
        assert txn["response"]["payloadLength"] > 0  # the ProblemDetails


def test_acks_from_the_broker_with_retries(kafka_broker, bsfd_factory):
    """ackRequired: acks=all, a record counts as sent once the broker acknowledged it."""
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic, **{"feed.ack_required": "true",
                                                                "feed.retry_on_failure": "3"}))
    for _ in range(20):
        assert discover(server.client, ipv4Addr=NOWHERE).status_code == 204
    assert wait_metric(server, "bsf_feed_sent_total", lambda v: v == 40) == 40
    assert len(consume(kafka_broker, topic, 40)) == 40
    assert metrics(server)["bsf_feed_delivery_failures_total"] == 0


def test_feed_off_adds_nothing(bsfd):
    assert discover(bsfd.reconnect(), ipv4Addr=NOWHERE).status_code == 204
    assert not [name for name in metrics(bsfd) if name.startswith("bsf_feed_")]


# ---- the feed never slows or fails a request ---------------------------------------------------

def timed_discoveries(server, count, workers=4):
    """Latencies (s) of `count` discoveries from `workers` threads, each on its own connection;
    every one must be 204."""

    def run(n):
        latencies = []
        with server.new_client() as client:
            for _ in range(n):
                start = time.monotonic()
                resp = discover(client, ipv4Addr=NOWHERE)
                assert resp.status_code == 204, resp.text
                latencies.append(time.monotonic() - start)
        return latencies

    shares = [count // workers + (1 if i < count % workers else 0) for i in range(workers)]
    with ThreadPoolExecutor(workers) as pool:
        return [t for part in pool.map(run, shares) for t in part]


def offered_total(samples):
    return sum(v for k, v in samples.items() if k.startswith("bsf_feed_offered_total{"))


def test_broker_down_requests_keep_their_latency_and_drops_are_counted(kafka_broker, bsfd_factory):
    topic = new_topic()
    capacity = 64
    server = bsfd_factory(feed_settings(kafka_broker, topic, **{
        "feed.queue_capacity": capacity, "feed.message_timeout_ms": 1000,
        "feed.flush_timeout_ms": 1000}))
    timed_discoveries(server, 20)  # warm up connections and the topic
    consume(kafka_broker, topic, 40)
    baseline = timed_discoveries(server, 300)

    kafka_broker.stop()
    try:
        down = timed_discoveries(server, 300)
        # requests do not wait for the feed (a waiting one would take the 1 s message
        # timeout): same latency as with the broker up, one scheduling stall aside
        assert sorted(down)[int(len(down) * 0.99)] < 0.5, sorted(down)[-5:]
        assert statistics.median(down) < 3 * statistics.median(baseline) + 0.005, \
            (statistics.median(down), statistics.median(baseline))
        # 600 records against a client queue of 64: drops, counted; then delivery failures
        wait_until(lambda: offered_total(metrics(server)) == 2 * (20 + 300 + 300),
                   what="every record offered")  # a response's record follows its sending
        samples = metrics(server)
        offered = offered_total(samples)
        assert samples['bsf_feed_dropped_total{reason="client_queue_full"}'] > 0
        assert samples["bsf_feed_queue_depth"] <= capacity
        assert samples["bsf_feed_client_queue_depth"] <= capacity
        assert wait_metric(server, "bsf_feed_delivery_failures_total", lambda v: v > 0) > 0
        samples = metrics(server)
        assert offered == samples["bsf_feed_produced_total"] + dropped_total(samples)
        # shutdown with the broker away is bounded by the flush timeout
        start = time.monotonic()
        server.stop()
        assert time.monotonic() - start < 10
        server.start()
        assert discover(server.client, ipv4Addr=NOWHERE).status_code == 204
    finally:
        kafka_broker.start()
    # the feed resumes once the broker is back (librdkafka reconnects by itself)
    deadline = time.monotonic() + CONSUME_TIMEOUT
    while feed_metric(server, "bsf_feed_sent_total") == 0 and time.monotonic() < deadline:
        assert discover(server.client, ipv4Addr=NOWHERE).status_code == 204
        time.sleep(0.5)
    assert feed_metric(server, "bsf_feed_sent_total") > 0


def test_queue_is_bounded_without_a_broker(bsfd_factory):
    """Nothing listens on the feed's broker address: every request still succeeds, the queues
    stay within feed.queue_capacity and every record is either produced or counted as dropped."""
    (port,) = free_ports(1)
    capacity = 16
    server = bsfd_factory({"feed.enabled": "true", "feed.brokers": f"127.0.0.1:{port}",
                           "feed.topic": "nowhere", "feed.queue_capacity": capacity,
                           "feed.flush_timeout_ms": 0, "feed.message_timeout_ms": 300000})
    timed_discoveries(server, 400, workers=8)
    samples = metrics(server)
    assert samples["bsf_feed_queue_depth"] <= capacity
    assert samples["bsf_feed_client_queue_depth"] <= capacity
    assert samples["bsf_feed_queue_capacity"] == capacity
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        samples = metrics(server)
        if samples["bsf_feed_produced_total"] + dropped_total(samples) == 800:
            break
        time.sleep(0.1)
    assert samples["bsf_feed_produced_total"] + dropped_total(samples) == 800
    assert samples["bsf_feed_produced_total"] <= capacity
    assert dropped_total(samples) >= 800 - capacity


# ---- settings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings, key", [
    ({"feed.enabled": "true"}, "feed.brokers"),
    ({"feed.topic": "no spaces"}, "feed.topic"),
    ({"feed.topic": ""}, "feed.topic"),
    ({"feed.queue_capacity": "1"}, "feed.queue_capacity"),
    ({"feed.copy_payload": "yes"}, "feed.copy_payload"),
    ({"feed.client_properties": "acks=1"}, "feed.client_properties"),
    ({"feed.client_properties": "no.such.property=1"}, "feed.client_properties"),
    ({"feed.client_properties": "linger.ms"}, "feed.client_properties"),
])
def test_invalid_feed_settings_exit_2_naming_the_key(tmp_path, settings, key):
    refused_at_start(tmp_path, settings, key)


def test_ue_and_mbs_binding_operations_carry_their_binding_id(kafka_broker, bsfd_factory):
    """The feed names the binding of /pcf-ue-bindings and /pcf-mbs-bindings operations like
    that of /pcfBindings ones: from the Location of a 201, from the path of PATCH / DELETE."""
    from ue_support import delete_ue, patch_ue, post_ue, ue_binding
    topic = new_topic()
    server = bsfd_factory(feed_settings(kafka_broker, topic))
    client = server.client
    resp = post_ue(client, ue_binding(Ue()))
    assert resp.status_code == 201, resp.text
    ue_id = location_id_of(resp)
    assert patch_ue(client, ue_id, {"pcfForUeFqdn": "pcf-ue2.example.com"}).status_code == 200
    assert delete_ue(client, ue_id).status_code == 204
    mbs = {"mbsSessionId": {"tmgi": {"mbsServiceId": "0FEED0", "plmnId": {"mcc": "001",
                                                                          "mnc": "01"}}},
           "pcfFqdn": "pcf-mbs.example.com"}
    resp = client.post("/pcf-mbs-bindings", content=json.dumps(mbs).encode(),
                       headers={"content-type": "application/json"})
    assert resp.status_code == 201, resp.text
    mbs_id = location_id_of(resp)
    assert client.delete(f"/pcf-mbs-bindings/{mbs_id}").status_code == 204
    by_id = transactions(consume(kafka_broker, topic, 10))
    assert find(by_id, "POST", f"{API_PATH}/pcf-ue-bindings", 201)["response"]["bindingId"] == ue_id
    for method, status in (("PATCH", 200), ("DELETE", 204)):
        txn = find(by_id, method, f"{API_PATH}/pcf-ue-bindings/{ue_id}", status)
        assert txn["request"]["bindingId"] == txn["response"]["bindingId"] == ue_id
    assert find(by_id, "POST", f"{API_PATH}/pcf-mbs-bindings", 201)["response"]["bindingId"] == mbs_id
    txn = find(by_id, "DELETE", f"{API_PATH}/pcf-mbs-bindings/{mbs_id}", 204)
    assert txn["request"]["bindingId"] == mbs_id


def location_id_of(resp):
    match = re.search(r"/([0-9a-f]{32})$", resp.headers.get("location", ""))
    assert match, resp.headers
    return match.group(1)
