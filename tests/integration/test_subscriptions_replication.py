"""Subscriptions are events in the replicated log, so they reach every site; the site that
created a subscription is the one that notifies it (docs/architecture.md, "Notifications
across sites"). Three sites on a real Kafka broker: subscribe at A, register at B, deregister
at C: exactly one notification of each, from A; while A is down nothing is sent, and A sends
what it missed once it is back (at least once)."""
import time

from replication_support import wait_converged, wait_for
from support import Ue, binding, delete, metrics, register
from sub_support import NotifReceiver, delete_sub, put_sub, subscribe, subscription

TIMEOUT = 30


def sent(site):
    return metrics(site).get("bsf_notifications_sent_total", 0)


def test_a_binding_at_one_site_notifies_a_subscription_of_another_exactly_once(site_factory):
    rx = NotifReceiver().start()
    try:
        a, b, c = site_factory.start(3)
        ue = Ue()
        sub_id, _ = subscribe(a.client, subscription(ue, rx.uri("/ok/geo"), notifCorreId="geo"))
        for s in (b, c):
            wait_for(lambda s=s: any(e["type"] == "SubscriptionCreated"
                                     for e in s.history(binding=sub_id)),
                     TIMEOUT, "the subscription at every site")
        binding_id, _ = register(b.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4))
        wait_for(lambda: len(rx.received("geo")) >= 1, TIMEOUT, "the registration's notification")
        wait_for(lambda: all(s.history(binding=binding_id) for s in (a, c)), TIMEOUT,
                 "the binding at every site")
        assert delete(c.client, binding_id).status_code == 204
        wait_for(lambda: len(rx.received("geo")) >= 2, TIMEOUT, "the deregistration's one")
        wait_converged([a, b, c])
        time.sleep(1.0)
        got = rx.received("geo")
        assert [n["eventNotifs"][0]["event"] for n in got] == [
            "PCF_PDU_SESSION_BINDING_REGISTRATION", "PCF_PDU_SESSION_BINDING_DEREGISTRATION"]
        assert (sent(a), sent(b), sent(c)) == (2, 0, 0)

        # The owning site is down: nothing is sent; back, it sends what it missed.
        a.stop()
        later, _ = register(b.client, binding(supi=ue.supi, ipv4Addr=Ue().ipv4))
        time.sleep(1.5)
        assert len(rx.received("geo")) == 2
        a.start()
        wait_for(lambda: len(rx.received("geo")) >= 3, TIMEOUT, "the notification after A's return")
        wait_converged([a, b, c])
        time.sleep(1.0)
        assert len(rx.received("geo")) == 3
        assert rx.received("geo")[2]["eventNotifs"][0]["event"] == \
            "PCF_PDU_SESSION_BINDING_REGISTRATION"
        assert rx.violations == []
    finally:
        rx.close()


def test_a_change_made_at_another_site_reaches_the_notifying_sites_cache(site_factory):
    """A's engine caches the subscriptions of the UEs it notifies for: a replacement or a
    deletion made at B, replicated to A, is honoured by A's next notification."""
    rx = NotifReceiver().start()
    try:
        a, b = site_factory.start(2)
        ue = Ue()
        body = subscription(ue, rx.uri("/ok/geo2"), notifCorreId="from-a",
                            events=["PCF_PDU_SESSION_BINDING_REGISTRATION"])
        sub_id, _ = subscribe(a.client, body)
        register(a.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4))
        wait_for(lambda: len(rx.received("geo2")) >= 1, TIMEOUT, "the first notification")
        wait_for(lambda: any(e["type"] == "SubscriptionCreated"
                             for e in b.history(binding=sub_id)), TIMEOUT, "the subscription at B")
        assert put_sub(b.client, sub_id, {**body, "notifCorreId": "from-b"}).status_code == 200
        wait_for(lambda: any(e["type"] == "SubscriptionReplaced"
                             for e in a.history(binding=sub_id)), TIMEOUT, "the PUT at A")
        register(a.client, binding(supi=ue.supi, ipv4Addr=Ue().ipv4))
        wait_for(lambda: len(rx.received("geo2")) >= 2, TIMEOUT, "the second notification")
        assert rx.received("geo2")[1]["notifCorreId"] == "from-b"
        assert delete_sub(b.client, sub_id).status_code == 204
        wait_for(lambda: any(e["type"] == "SubscriptionRemoved"
                             for e in a.history(binding=sub_id)), TIMEOUT, "the DELETE at A")
        register(a.client, binding(supi=ue.supi, ipv4Addr=Ue().ipv4))
        register(b.client, binding(supi=ue.supi, ipv4Addr=Ue().ipv4))
        wait_converged([a, b])
        time.sleep(1.0)
        assert len(rx.received("geo2")) == 2
        assert (sent(a), sent(b)) == (2, 0)
        assert rx.violations == []
    finally:
        rx.close()
