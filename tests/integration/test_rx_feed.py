"""Rx messages in the message feed (seed 3.43, docs/feed.md): every Diameter request and answer
the gateway receives and sends is a record on the feed's Kafka topic, with its metadata and
the message itself; the feed never slows or fails an Rx answer.

Real af_peer / pcf_peer processes around a real bsfd, the session's Kafka broker
(`kafka_broker`), one topic per test, read back with kcat.
"""

import base64
import re
import struct
import time

from feed_support import (CONSUME_TIMEOUT, consume, dropped_total, feed_metric, feed_settings,
                          metrics, new_topic, transactions, wait_metric)
from rx_support import AF_ID, BSF_ID, RX_APP, rx_lab  # noqa: F401 (fixture)
from support import Ue, wait_until

AAR, STR = 265, 275
FLAG_R, FLAG_P = 0x80, 0x40
SESSION_ID, ORIGIN_HOST, DESTINATION_HOST, ROUTE_RECORD = 263, 264, 293, 282
PCF = "pcf1.test.local"
ADDR = re.compile(r"127\.0\.0\.1:(\d+)")


def diameter_records(broker, topic, count):
    """The topic's Diameter records (the SBI requests of the test are there too)."""
    deadline = time.monotonic() + CONSUME_TIMEOUT
    records = [r for r in consume(broker, topic, count) if r[1]["protocol"] == "diameter"]
    while len(records) < count:
        assert time.monotonic() < deadline, f"{len(records)} of {count} Diameter records"
        time.sleep(0.5)
        records = [r for r in consume(broker, topic, count) if r[1]["protocol"] == "diameter"]
    return records


def diameter(record):
    """The record's payload decoded: the header fields and the top-level AVPs
    [(code, vendor, data)]."""
    raw = base64.b64decode(record["payload"])
    assert record["payloadEncoding"] == "base64", record
    assert record["payloadLength"] == len(raw), record
    version, length = raw[0], int.from_bytes(raw[1:4], "big")
    flags, code = raw[4], int.from_bytes(raw[5:8], "big")
    app, hbh, e2e = struct.unpack(">III", raw[8:20])
    assert version == 1 and length == len(raw), record
    avps, at = [], 20
    while at < length:
        avp_code, avp_flags = struct.unpack(">IB", raw[at:at + 5])
        avp_len = int.from_bytes(raw[at + 5:at + 8], "big")
        vendor, head = (struct.unpack(">I", raw[at + 8:at + 12])[0], 12) if avp_flags & 0x80 \
            else (0, 8)
        avps.append((avp_code, vendor, raw[at + head:at + avp_len]))
        at += (avp_len + 3) // 4 * 4
    return {"flags": flags, "code": code, "app": app, "hbh": hbh, "e2e": e2e, "avps": avps}


def avp_texts(message, code):
    return [data.decode() for c, v, data in message["avps"] if c == code and v == 0]


def exchange(by_id, direction, code):
    """The one transaction of `direction` (ingress / egress) with this command code."""
    matches = [t for t in by_id.values()
               if t["request"]["direction"] == direction and t["request"]["commandCode"] == code]
    assert len(matches) == 1, (direction, code, list(by_id.values()))
    return matches[0]


def check_exchange(txn, direction, peer_host, sid, e2e, hbh, binding_id, before_ms, after_ms):
    request, response = txn["request"], txn["response"]
    for record in (request, response):
        assert record["version"] == 1 and record["protocol"] == "diameter", record
        assert record["direction"] == direction and record["site"] == 1, record
        assert record["peerHost"] == peer_host, record
        assert record["sessionId"] == sid and record["endToEnd"] == e2e, record
        assert record["hopByHop"] == hbh, record
        assert record["applicationId"] == RX_APP, record
        assert ADDR.fullmatch(record["local"]) and ADDR.fullmatch(record["peer"]), record
        message = diameter(record)
        assert (message["code"], message["app"], message["hbh"], message["e2e"]) == \
            (record["commandCode"], RX_APP, hbh, e2e), record
        assert message["flags"] == record["commandFlags"], record
        assert avp_texts(message, SESSION_ID) == [sid], record
    assert request["kind"] == "request" and response["kind"] == "response"
    assert request["commandFlags"] == FLAG_R | FLAG_P, request
    assert response["commandFlags"] == FLAG_P, response
    assert request["commandCode"] == response["commandCode"]
    assert "resultCode" not in request and response["resultCode"] == 2001, response
    assert dict(response["headers"])["Result-Code"] == "2001", response
    assert (request["local"], request["peer"]) == (response["local"], response["peer"])
    if direction == "ingress":  # the requester's exchange: received, then answered
        assert before_ms <= request["receivedMs"] == response["receivedMs"] \
            <= response["sentMs"] <= after_ms, txn
        assert "sentMs" not in request, request
        assert "bindingId" not in request, request  # looked up after reception
    else:  # forwarded to the PCF: sent, then its answer received
        assert before_ms <= request["sentMs"] == response["sentMs"] \
            <= response["receivedMs"] <= after_ms, txn
        assert "receivedMs" not in request, request
        assert request["bindingId"] == binding_id, request
    assert response["bindingId"] == binding_id, response


def test_aar_i_and_str_through_the_gateway_are_four_records_each(kafka_broker, rx_lab):
    topic = new_topic()
    lab = rx_lab(settings=feed_settings(kafka_broker, topic))
    ue = Ue()
    binding_id = lab.register(ue)
    before_ms = int(time.time() * 1000) - 1000
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    sid, e2e = reply["session_id"], reply["e2e"]
    (aar,) = lab.pcf().received(sid, "aar-i")
    str_reply = lab.af.cmd(f"str session={sid}")
    assert str_reply["code"] == 2001, str_reply
    (str_,) = lab.pcf().received(sid, "str")
    after_ms = int(time.time() * 1000) + 1000

    records = diameter_records(kafka_broker, topic, 8)
    assert len(records) == 8, [r for _, r in records]
    assert all(key == sid for key, _ in records), records  # the Session-Id keys them all
    by_id = transactions(records)
    assert len(by_id) == 4 and all(len(t) == 2 for t in by_id.values()), by_id

    for code, af_reply, pcf_got in ((AAR, reply, aar), (STR, str_reply, str_)):
        ingress, egress = exchange(by_id, "ingress", code), exchange(by_id, "egress", code)
        # AF -> BSF, answered: the AF's Hop-by-Hop id; BSF -> PCF: the one the PCF got
        check_exchange(ingress, "ingress", AF_ID, sid, af_reply["e2e"],
                       af_reply["record"]["hbh"], binding_id, before_ms, after_ms)
        check_exchange(egress, "egress", PCF, sid, af_reply["e2e"], pcf_got["hbh"], binding_id,
                       before_ms, after_ms)
        assert ingress["request"]["local"] == f"127.0.0.1:{lab.diameter_port}"
        assert egress["request"]["peer"] == f"127.0.0.1:{lab.pcf_ports[PCF]}"
        # the messages as they were on the wire
        received = diameter(ingress["request"])
        assert avp_texts(received, ROUTE_RECORD) == [], received  # as the AF sent it
        assert avp_texts(received, DESTINATION_HOST) == [], received
        forwarded = diameter(egress["request"])
        assert avp_texts(forwarded, ROUTE_RECORD) == [AF_ID], forwarded
        assert avp_texts(forwarded, DESTINATION_HOST) == [PCF], forwarded
        assert dict(egress["request"]["headers"])["Destination-Host"] == PCF
        for answer in (ingress["response"], egress["response"]):
            assert avp_texts(diameter(answer), ORIGIN_HOST) == [PCF], answer
            assert avp_texts(diameter(answer), ROUTE_RECORD) == [], answer
        assert dict(ingress["request"]["headers"])["Origin-Host"] == AF_ID
    assert e2e == exchange(by_id, "egress", AAR)["request"]["endToEnd"]

    for direction in ("ingress", "egress"):
        for kind in ("request", "response"):
            assert feed_metric(lab.bsfd, "bsf_feed_offered_total", protocol="diameter",
                               direction=direction, kind=kind) == 2
    # and the registration's two SBI records
    assert wait_metric(lab.bsfd, "bsf_feed_sent_total", lambda v: v == 10) == 10
    assert dropped_total(metrics(lab.bsfd)) == 0


def test_answers_made_by_the_gateway_and_copy_payload_off(kafka_broker, rx_lab):
    """An AAR-I without a binding is answered by the BSF (Experimental-Result 5065): the
    exchange stays ingress. Without feed.copy_payload the records give the length only."""
    topic = new_topic()
    lab = rx_lab(settings=feed_settings(kafka_broker, topic, **{"feed.copy_payload": "false"}))
    reply = lab.aar_i(ip=Ue().ipv4)
    assert reply["code"] == 5065, reply
    (txn,) = transactions(consume(kafka_broker, topic, 2)).values()
    request, response = txn["request"], txn["response"]
    assert request["direction"] == response["direction"] == "ingress"
    assert request["peerHost"] == response["peerHost"] == AF_ID
    assert response["resultCode"] == 5065, response
    headers = dict(response["headers"])
    assert headers["Experimental-Result-Code"] == "5065" and "Result-Code" not in headers
    assert headers["Origin-Host"] == BSF_ID, headers
    for record in (request, response):
        assert "payload" not in record and "payloadEncoding" not in record, record
        assert record["payloadLength"] > 20, record
        assert "bindingId" not in record, record
    assert lab.pcf().events(type="recv") == []


def diameter_offered(bsfd):
    return sum(v for k, v in metrics(bsfd).items()
               if k.startswith('bsf_feed_offered_total{protocol="diameter"'))


def test_a_stopped_broker_does_not_delay_rx_answers(kafka_broker, rx_lab):
    topic = new_topic()
    capacity = 64
    lab = rx_lab(settings=feed_settings(kafka_broker, topic, **{
        "feed.queue_capacity": capacity, "feed.message_timeout_ms": 1000,
        "feed.flush_timeout_ms": 1000}))
    for i in range(1, 17):
        lab.register(Ue(), ipv4Addr=f"10.77.0.{i}")
    consume(kafka_broker, topic, 32)  # the topic is there, its leader elected
    load = "load n=300 window=4 mix=1 ip=10.77.0.1 count=16"
    lab.af.cmd("load n=10 window=4 ip=10.77.0.1 count=16")  # warm-up
    diameter_records(kafka_broker, topic, 40)
    baseline = lab.af.cmd(load)

    kafka_broker.stop()
    try:
        down = lab.af.cmd(load)
        for report in (baseline, down):
            assert report["answers"] == 900 and report["result_codes"] == {"2001": 900}, report
            assert report["timeouts"] == 0 and report["lost"] == 0, report
        # answers do not wait for the feed (a waiting one would take the 1 s message timeout):
        # same latency as with the broker up, one scheduling stall aside
        assert down["latency_ms"]["p99"] < 500, down
        assert down["latency_ms"]["p50"] < 3 * baseline["latency_ms"]["p50"] + 5, (down, baseline)
        # an answer's records are offered once libfdcore has written it: the AF can be first
        offered = 4 * (10 + 900 + 900)
        wait_until(lambda: diameter_offered(lab.bsfd) == offered,
                   what="every Diameter record offered")
        samples = metrics(lab.bsfd)
        assert samples["bsf_feed_queue_depth"] <= capacity
        assert wait_metric(lab.bsfd, "bsf_feed_delivery_failures_total", lambda v: v > 0) > 0
        samples = metrics(lab.bsfd)
        assert samples['bsf_feed_dropped_total{reason="client_queue_full"}'] > 0
        every = sum(v for k, v in samples.items() if k.startswith("bsf_feed_offered_total{"))
        assert every == offered + 32  # and the registrations
        assert every == samples["bsf_feed_produced_total"] + dropped_total(samples)
    finally:
        kafka_broker.start()
