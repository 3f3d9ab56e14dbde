"""/subscriptions (TS 29.521 §4.2.6, §4.2.7): create (201, absolute Location, the
BsfSubscriptionResp with the expiry granted), replace (PUT, 200), delete (204), validation
with precise causes and nothing stored on bad input, and the notifications they cause: POSTed
to notifUri after the commit, for each subscribed event, filtered by SUPI/GPSI and
(add)snssaiDnnPairs, every body valid against BsfNotification (the receiver checks)."""
import datetime
import json
import time

import pytest

from support import (Ue, assert_problem, binding, delete, metrics, register, wait_until,
                     allowed_methods, assert_no_content)
from sub_support import (PAIR_EVENTS, PDU_EVENTS, UE_EVENTS, NotifReceiver, assert_sub_resp,
                         delete_sub, in_seconds, parse_time, post_sub, put_sub,
                         stored_subscriptions, subscribe, subscription)
from ue_support import delete_ue, register_ue, ue_binding

MAX_EXPIRY_S = 3600


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    # 1.5 s per attempt: a receiver's 2xx slower than the attempt's timeout is retried (at
    # least once delivery), and on a loaded machine 300 ms gave the exact-count tests a second
    # notification
    return module_bsfd_factory({"subscriptions.max_expiry": f"{MAX_EXPIRY_S}s",
                                "notify.retries": "2", "notify.timeout_ms": "1500",
                                "notify.backoff_ms": "50", "notify.backoff_max_ms": "100"})


@pytest.fixture(scope="module")
def rx():
    receiver = NotifReceiver().start()
    yield receiver
    receiver.close()
    assert receiver.violations == []


def pdu(ue, **members):
    return binding(**{"supi": ue.supi, "gpsi": ue.gpsi, "ipv4Addr": ue.ipv4, **members})


def notifs(rx, name, n, timeout=10.0):
    """Exactly `n` notifications for `name` (waits for them, then a little for extra ones)."""
    wait_until(lambda: len(rx.received(name)) >= n, timeout, f"{n} notification(s) at {name}")
    time.sleep(0.3)
    got = rx.received(name)
    assert len(got) == n, got
    return got


# ---- the resource -----------------------------------------------------------------------

def test_create_answers_201_with_location_and_the_granted_expiry(bsfd, client, rx):
    ue = Ue()
    body = subscription(ue, rx.uri("/ok/create"), gpsi=ue.gpsi,
                        snssaiDnnPairs={"snssai": {"sst": 1, "sd": "00000A"}, "dnn": "internet"},
                        addSnssaiDnnPairs=[{"snssai": {"sst": 2}, "dnn": "ims"}],
                        suppFeat="0")
    sub_id, stored = subscribe(client, body)
    # no expiry asked: the BSF grants its maximum and says so
    granted = parse_time(stored.pop("expiry"))
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((granted - now).total_seconds() - MAX_EXPIRY_S) < 30
    assert stored == body
    assert_no_content(delete_sub(client, sub_id))


def test_expiry_is_honoured_or_shortened(client, rx):
    ue = Ue()
    near = in_seconds(600)
    _, stored = subscribe(client, subscription(ue, rx.uri("/ok/exp"), expiry=near))
    assert parse_time(stored["expiry"]) == parse_time(near)
    _, stored = subscribe(client, subscription(ue, rx.uri("/ok/exp"), expiry=in_seconds(86400 * 30)))
    granted = parse_time(stored["expiry"])
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((granted - now).total_seconds() - MAX_EXPIRY_S) < 30


def test_replace_and_delete(bsfd, client, rx):
    ue = Ue()
    sub_id, _ = subscribe(client, subscription(ue, rx.uri("/ok/replace")))
    new = subscription(ue, rx.uri("/ok/replaced"), events=UE_EVENTS, notifCorreId="again",
                       expiry=in_seconds(120))
    stored = assert_sub_resp(put_sub(client, sub_id, new), 200)
    assert stored == new
    assert_no_content(delete_sub(client, sub_id))
    assert_problem(delete_sub(client, sub_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(put_sub(client, sub_id, new), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    # the log: history (by id and by SUPI) and export show the three events
    events = bsfd.history(binding=sub_id)
    assert [e["type"] for e in events] == ["SubscriptionCreated", "SubscriptionReplaced",
                                           "SubscriptionRemoved"]
    assert events[1]["subscription"] == new and events[2]["reason"] == "unsubscribed"
    assert [e["bindingId"] for e in bsfd.history(supi=ue.supi)] == [sub_id] * 3
    exported = [json.loads(line) for line in bsfd.bsfctl("export").stdout.splitlines()
                if sub_id in line]
    assert [e["type"] for e in exported] == [e["type"] for e in events]
    assert_problem(delete_sub(client, "not-an-id"), 404, "RESOURCE_CONTEXT_NOT_FOUND")


def test_methods_and_queries(client, rx):
    resp = client.get("/subscriptions")
    assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    assert allowed_methods(resp) == {"POST"}
    resp = client.patch("/subscriptions/" + "0" * 32, json={})
    assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    assert allowed_methods(resp) == {"PUT", "DELETE"}
    resp = client.head("/subscriptions")
    assert resp.status_code == 405 and resp.content == b"" and allowed_methods(resp) == {"POST"}
    ue = Ue()
    resp = client.post("/subscriptions?x=1", json=subscription(ue, rx.uri("/ok/q")))
    assert_problem(resp, 400, "INVALID_QUERY_PARAM")


BAD = [
    ({"supi": None}, 400, "MANDATORY_IE_MISSING", "/supi"),
    ({"events": None}, 400, "MANDATORY_IE_MISSING", "/events"),
    ({"notifCorreId": None}, 400, "MANDATORY_IE_MISSING", "/notifCorreId"),
    ({"notifUri": None}, 400, "MANDATORY_IE_MISSING", "/notifUri"),
    ({"supi": "imsi-12"}, 400, "MANDATORY_IE_INCORRECT", "/supi"),
    ({"events": []}, 400, "MANDATORY_IE_INCORRECT", "/events"),
    ({"events": ["SOMETHING_LATER"]}, 400, "MANDATORY_IE_INCORRECT", "/events"),
    ({"events": [7]}, 400, "MANDATORY_IE_INCORRECT", "/events/0"),
    ({"notifUri": "ftp://host/x"}, 400, "MANDATORY_IE_INCORRECT", "/notifUri"),
    ({"notifUri": "/relative"}, 400, "MANDATORY_IE_INCORRECT", "/notifUri"),
    ({"notifCorreId": ""}, 400, "MANDATORY_IE_INCORRECT", "/notifCorreId"),
    ({"gpsi": "msisdn-12"}, 400, "OPTIONAL_IE_INCORRECT", "/gpsi"),
    ({"snssaiDnnPairs": {"dnn": "internet"}}, 400, "OPTIONAL_IE_INCORRECT", "/snssaiDnnPairs"),
    ({"snssaiDnnPairs": {"snssai": {"sst": 300}, "dnn": "x"}}, 400, "OPTIONAL_IE_INCORRECT",
     "/snssaiDnnPairs/snssai/sst"),
    ({"addSnssaiDnnPairs": []}, 400, "OPTIONAL_IE_INCORRECT", "/addSnssaiDnnPairs"),
    ({"expiry": "tomorrow"}, 400, "OPTIONAL_IE_INCORRECT", "/expiry"),
    ({"expiry": "2001-01-01T00:00:00Z"}, 400, "OPTIONAL_IE_INCORRECT", "/expiry"),
    ({"suppFeat": "xyz"}, 400, "OPTIONAL_IE_INCORRECT", "/suppFeat"),
]


@pytest.mark.parametrize("change,status,cause,param", BAD)
def test_bad_input_is_refused_with_its_cause_and_nothing_stored(bsfd, client, rx, change,
                                                                status, cause, param):
    before = stored_subscriptions(bsfd)
    ue = Ue()
    body = subscription(ue, rx.uri("/ok/bad"), **change)
    assert_problem(post_sub(client, body), status, cause, param)
    sub_id, _ = subscribe(client, subscription(ue, rx.uri("/ok/bad")))
    assert_problem(put_sub(client, sub_id, body), status, cause, param)
    assert_no_content(delete_sub(client, sub_id))
    assert stored_subscriptions(bsfd) == before + 1  # the good one's tombstone only


def test_not_json_or_wrong_media_type(client, rx):
    assert_problem(post_sub(client, b"{not json"), 400, "INVALID_MSG_FORMAT")
    assert_problem(post_sub(client, b"[]"), 400, "INVALID_MSG_FORMAT")
    body = subscription(Ue(), rx.uri("/ok/media"))
    assert_problem(post_sub(client, body, content_type="text/plain"), 415,
                   ("UNSUPPORTED_MEDIA_TYPE", "INVALID_MSG_FORMAT"))


# ---- notifications ----------------------------------------------------------------------

def test_pdu_session_registration_and_deregistration_are_notified(client, rx, bsfd):
    ue = Ue()
    sub_id, _ = subscribe(client, subscription(ue, rx.uri("/ok/pdu1"), notifCorreId="c-pdu1"))
    body = pdu(ue, pcfId="9b5f7a9e-0000-4000-8000-000000000001")
    binding_id, _ = register(client, body)
    (n,) = notifs(rx, "pdu1", 1)
    assert n["notifCorreId"] == "c-pdu1"
    (ev,) = n["eventNotifs"]
    assert ev["event"] == "PCF_PDU_SESSION_BINDING_REGISTRATION"
    (info,) = ev["pcfForPduSessInfos"]
    assert info["dnn"] == body["dnn"] and info["snssai"] == body["snssai"]
    assert info["pcfFqdn"] == body["pcfFqdn"] and info["ipv4Addr"] == ue.ipv4
    assert info["pcfId"] == body["pcfId"]
    headers = rx.headers("pdu1")[0]
    assert headers["3gpp-sbi-callback"] == "Nbsf_Management_Notification"
    assert headers["3gpp-sbi-message-priority"] == "24"
    assert headers["3gpp-sbi-correlation-info"] == ue.supi
    assert delete(client, binding_id).status_code == 204
    _, second = notifs(rx, "pdu1", 2)
    assert [e["event"] for e in second["eventNotifs"]] == ["PCF_PDU_SESSION_BINDING_DEREGISTRATION"]
    assert second["eventNotifs"][0]["pcfForPduSessInfos"][0]["ipv4Addr"] == ue.ipv4
    assert_no_content(delete_sub(client, sub_id))
    register(client, pdu(Ue(), supi=ue.supi))
    notifs(rx, "pdu1", 2)  # deleted: no more
    # seed 3.1's series of the BSF as consumer: notify.priority before and after (no profile
    # rule applies), the receiver's 204 without a priority (the module's other tests add more)
    out = ('ocbsf_http_message_priority_request_count_total{direction="out",rcvd_priority="24",'
           'eval_priority="24",interface_type="Nbsf_Management",msg_type="Notify"}')
    answers = ('ocbsf_http_message_priority_response_count_total{direction="in",'
               'rcvd_priority="NA",eval_priority="NA",interface_type="Nbsf_Management",'
               'msg_type="Notify",response_code="204"}')
    wait_until(lambda: metrics(bsfd).get(answers, 0) >= 2, what="the notifications' answers")
    assert metrics(bsfd)[out] >= 2


def test_ue_binding_events(client, rx):
    ue = Ue()
    subscribe(client, subscription(ue, rx.uri("/ok/ue1"), events=UE_EVENTS))
    register(client, pdu(ue))  # a PDU session: not subscribed
    binding_id, _ = register_ue(client, ue_binding(ue, pcfSetId="set1.pcfset.5gc.mnc01.mcc001"))
    (n,) = notifs(rx, "ue1", 1)
    (ev,) = n["eventNotifs"]
    assert ev["event"] == "PCF_UE_BINDING_REGISTRATION"
    assert ev["pcfForUeInfo"] == {"pcfFqdn": "pcf-ue1.example.com",
                                  "pcfSetId": "set1.pcfset.5gc.mnc01.mcc001"}
    assert delete_ue(client, binding_id).status_code == 204
    _, second = notifs(rx, "ue1", 2)
    assert second["eventNotifs"][0]["event"] == "PCF_UE_BINDING_DEREGISTRATION"


def test_snssai_dnn_events_for_the_first_and_last_session(client, rx):
    ue = Ue()
    subscribe(client, subscription(ue, rx.uri("/ok/pair1"), events=PAIR_EVENTS))
    first, _ = register(client, pdu(ue))
    second, _ = register(client, pdu(ue, ipv4Addr=None, ipv6Prefix=ue.ipv6))
    (n,) = notifs(rx, "pair1", 1)
    (ev,) = n["eventNotifs"]
    assert ev["event"] == "SNSSAI_DNN_BINDING_REGISTRATION"
    assert ev["matchSnssaiDnns"] == [{"snssai": binding()["snssai"], "dnn": "internet"}]
    assert delete(client, first).status_code == 204
    notifs(rx, "pair1", 1)  # one session is left
    assert delete(client, second).status_code == 204
    _, last = notifs(rx, "pair1", 2)
    assert [e["event"] for e in last["eventNotifs"]] == ["SNSSAI_DNN_BINDING_DEREGISTRATION"]


def test_filters_by_pairs_and_gpsi(client, rx):
    ue = Ue()
    pair = {"snssai": {"sst": 3, "sd": "ABCDEF"}, "dnn": "ims"}
    subscribe(client, subscription(ue, rx.uri("/ok/filt"), snssaiDnnPairs=pair))
    register(client, pdu(ue))  # dnn internet: not a subscribed pair
    register(client, pdu(ue, ipv4Addr=None, ipv6Prefix=ue.ipv6, dnn="IMS",
                         snssai={"sst": 3, "sd": "abcdef"}))
    (n,) = notifs(rx, "filt", 1)
    assert n["eventNotifs"][0]["pcfForPduSessInfos"][0]["dnn"] == "IMS"
    # by GPSI: a binding of another SUPI with the subscription's GPSI
    other = Ue()
    subscribe(client, subscription(other, rx.uri("/ok/bygpsi"), gpsi=other.gpsi))
    register(client, binding(supi=Ue().supi, gpsi=other.gpsi, ipv4Addr=other.ipv4))
    register(client, binding(supi=Ue().supi, gpsi=Ue().gpsi, ipv4Addr=Ue().ipv4))
    notifs(rx, "bygpsi", 1)


def test_a_changed_or_deleted_subscription_is_never_served_stale(client, rx):
    """The engine caches each UE's decoded subscriptions: every change is honoured at once
    for a UE whose subscriptions are cached (each step registers the UE again)."""
    ue = Ue()
    sub_id, _ = subscribe(client, subscription(ue, rx.uri("/ok/stale"), notifCorreId="v1",
                                               events=["PCF_PDU_SESSION_BINDING_REGISTRATION"]))
    register(client, pdu(ue))
    register(client, pdu(ue, ipv4Addr=None, ipv6Prefix=ue.ipv6))  # served from the cache
    assert [n["notifCorreId"] for n in notifs(rx, "stale", 2)] == ["v1", "v1"]
    # another notifCorreId
    assert_sub_resp(put_sub(client, sub_id, subscription(
        ue, rx.uri("/ok/stale"), notifCorreId="v2",
        events=["PCF_PDU_SESSION_BINDING_REGISTRATION"])), 200)
    register(client, pdu(ue, ipv4Addr=Ue().ipv4))
    assert notifs(rx, "stale", 3)[2]["notifCorreId"] == "v2"
    # a pair filter the next session does not match, then one it does
    pair = {"snssai": {"sst": 3, "sd": "ABCDEF"}, "dnn": "ims"}
    assert_sub_resp(put_sub(client, sub_id, subscription(
        ue, rx.uri("/ok/stale"), notifCorreId="v3", snssaiDnnPairs=pair,
        events=["PCF_PDU_SESSION_BINDING_REGISTRATION"])), 200)
    register(client, pdu(ue, ipv4Addr=Ue().ipv4))
    register(client, pdu(ue, ipv4Addr=Ue().ipv4, dnn="ims", snssai=pair["snssai"]))
    got = notifs(rx, "stale", 4)
    assert got[3]["notifCorreId"] == "v3"
    assert got[3]["eventNotifs"][0]["pcfForPduSessInfos"][0]["dnn"] == "ims"
    # deleted: no more, though the UE keeps registering
    assert_no_content(delete_sub(client, sub_id))
    register(client, pdu(ue, ipv4Addr=Ue().ipv4))
    register(client, pdu(ue, ipv4Addr=Ue().ipv4, dnn="ims", snssai=pair["snssai"]))
    notifs(rx, "stale", 4)


def test_retries_redirects_and_drops(bsfd, client, rx):
    ue = Ue()
    subscribe(client, subscription(ue, rx.uri("/fail/flaky/2"), notifCorreId="flaky"))
    subscribe(client, subscription(ue, rx.uri("/moved/307/mv7")))
    subscribe(client, subscription(ue, rx.uri("/moved/308/mv8")))
    subscribe(client, subscription(ue, rx.uri("/error/broken")))
    subscribe(client, subscription(ue, rx.uri("/hang/stuck")))
    before = metrics(bsfd)
    register(client, pdu(ue))
    notifs(rx, "flaky", 1)
    assert rx.count("flaky") == 3  # two 503s, then 204
    notifs(rx, "mv7", 1)
    notifs(rx, "mv8", 1)
    failed = 'bsf_notifications_dropped_total{reason="failed"}'
    wait_until(lambda: metrics(bsfd)[failed] >= before[failed] + 2, 15, "two drops")
    assert rx.count("broken") == 3  # notify.retries = 2
    assert rx.count("stuck") == 3
    assert "notification dropped (failed)" in bsfd.stderr_text()


def test_a_hanging_receiver_never_delays_registrations(client, rx):
    ue = Ue()
    for i in range(5):
        subscribe(client, subscription(ue, rx.uri(f"/hang/slow{i}")))
    started = time.monotonic()
    for i in range(20):
        register(client, pdu(ue, ipv4Addr=f"10.250.{ue.n % 250}.{i + 1}"))
    assert time.monotonic() - started < 5.0  # each answer far below the 1.5 s attempt


def test_queue_per_subscriber_is_bounded(bsfd_factory, rx):
    server = bsfd_factory({"notify.queue_per_subscriber": "2", "notify.retries": "0",
                           "notify.timeout_ms": "2000"})
    client = server.client
    ue = Ue()
    subscribe(client, subscription(ue, rx.uri("/hang/full")))
    for i in range(6):
        register(client, pdu(ue, ipv4Addr=f"10.251.{ue.n % 250}.{i + 1}"))
    key = 'bsf_notifications_dropped_total{reason="queue_full"}'
    wait_until(lambda: metrics(server)[key] >= 3, 10, "queue_full drops")
    assert "notification dropped (queue_full)" in server.stderr_text()


def test_expired_subscriptions_end(bsfd_factory, rx):
    server = bsfd_factory({"subscriptions.max_expiry": "2s"})
    client = server.client
    ue = Ue()
    sub_id, stored = subscribe(client, subscription(ue, rx.uri("/ok/expire")))
    assert parse_time(stored["expiry"]) < datetime.datetime.now(datetime.timezone.utc) + \
        datetime.timedelta(seconds=3)
    wait_until(lambda: any(e["type"] == "SubscriptionRemoved" and e.get("reason") == "expired"
                           for e in server.history(supi=ue.supi) + server.history(binding=sub_id)),
               15, "the expiry's removal event")
    register(client, pdu(ue))
    time.sleep(0.5)
    assert rx.received("expire") == []
    assert_problem(delete_sub(client, sub_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    events = [e["type"] for e in server.history(binding=sub_id)]
    assert events == ["SubscriptionCreated", "SubscriptionRemoved"]
