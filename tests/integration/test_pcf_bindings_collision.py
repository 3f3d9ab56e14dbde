"""Collision detection (seed §3.21): same supi, dnn, snssai and a shared UE address from
different PCFs. The newer wins by origination timestamp, else sender timestamp, else
arrival order; the loser is deregistered with reason replaced_by_collision, or the request
gets 403. The same PCF always replaces (refresh)."""

import datetime

import pytest

from support import (Ue, assert_binding, assert_gone, assert_problem, binding, found,
                     location_id, new_pcf_id, post_binding, register, sbi_time, utc_now)

ORIGINATION = "3gpp-Sbi-Origination-Timestamp"
SENDER = "3gpp-Sbi-Sender-Timestamp"
COLLISION_DETAIL = "Existing binding information found in DB"
BASE = utc_now().replace(microsecond=0) - datetime.timedelta(minutes=5)


def ts(seconds):
    return sbi_time(BASE + datetime.timedelta(seconds=seconds))


def headers(origination=None, sender=None):
    out = {}
    if origination is not None:
        out[ORIGINATION] = origination
    if sender is not None:
        out[SENDER] = sender
    return out


def rivals(ue, **addresses):
    """Two registrations of one PDU session from two different PCFs."""
    addresses = addresses or {"ipv4Addr": ue.ipv4}
    first = binding(supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-a.example.com", **addresses)
    second = binding(supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-b.example.com", **addresses)
    return first, second


def assert_replaced(bsfd, loser_id, winner_id):
    """The loser is gone and its last event says why, naming the winner."""
    assert_gone(bsfd.client, loser_id)
    events = bsfd.history(binding=loser_id)
    assert [e["type"] for e in events] == ["BindingRegistered", "BindingDeregistered"], events
    assert events[-1]["reason"] == "replaced_by_collision", events[-1]
    assert winner_id in str(events[-1]), f"the deregistration does not name {winner_id}: {events[-1]}"


def assert_refused(resp):
    body = assert_problem(resp, 403, "EXISTING_BINDING_INFO_FOUND", schema="ExtProblemDetails")
    assert body["detail"] == COLLISION_DETAIL, body


CASES = [
    # name, headers of the first request, headers of the second, does the second win?
    ("origination-newer-wins", headers(ts(0)), headers(ts(10)), True),
    ("origination-older-loses", headers(ts(10)), headers(ts(0)), False),
    ("origination-milliseconds-count", headers(ts(0.001)), headers(ts(0)), False),
    ("origination-before-sender", headers(ts(10), ts(0)), headers(ts(0), ts(10)), False),
    ("sender-when-origination-equal", headers(ts(0), ts(10)), headers(ts(0), ts(5)), False),
    ("sender-newer-when-origination-equal", headers(ts(0), ts(5)), headers(ts(0), ts(10)), True),
    ("sender-when-origination-one-sided", headers(ts(10), ts(10)), headers(None, ts(0)), False),
    ("sender-only", headers(None, ts(10)), headers(None, ts(0)), False),
    ("unparseable-origination-is-absent", headers(ts(0), ts(10)), headers("yesterday", ts(0)), False),
    ("unparseable-sender-is-absent", headers(None, ts(10)), headers(None, "Mon, 99 Foo 2019 GMT"), True),
    ("arrival-without-timestamps", headers(), headers(), True),
    ("arrival-when-timestamps-equal", headers(ts(0), ts(0)), headers(ts(0), ts(0)), True),
    ("arrival-when-second-has-none", headers(ts(10), ts(10)), headers(), True),
]


@pytest.mark.parametrize("name, first_headers, second_headers, second_wins", CASES,
                         ids=[case[0] for case in CASES])
def test_precedence(bsfd, client, name, first_headers, second_headers, second_wins):
    ue = Ue()
    first, second = rivals(ue)
    first_id, _ = register(client, first, headers=first_headers)
    count = bsfd.count()
    resp = post_binding(client, second, headers=second_headers)
    if second_wins:
        assert assert_binding(resp, 201) == second
        assert found(client, ipv4Addr=ue.ipv4) == second
        assert_replaced(bsfd, first_id, location_id(resp))
    else:
        assert_refused(resp)
        assert found(client, ipv4Addr=ue.ipv4) == first
        registrations = [e for e in bsfd.history(supi=ue.supi) if e["type"] == "BindingRegistered"]
        assert [e["bindingId"] for e in registrations] == [first_id]
    assert bsfd.count() == count


@pytest.mark.parametrize("shared", ["ipv6", "mac", "ipv4-same-domain", "one-of-two"])
def test_any_shared_address_collides(bsfd, client, shared):
    ue, other = Ue(), Ue()
    first_addresses, second_addresses = {
        "ipv6": ({"ipv6Prefix": ue.ipv6}, {"ipv6Prefix": ue.ipv6}),
        "mac": ({"macAddr48": ue.mac}, {"macAddr48": ue.mac}),
        "ipv4-same-domain": ({"ipv4Addr": ue.ipv4, "ipDomain": "d1"}, {"ipv4Addr": ue.ipv4, "ipDomain": "d1"}),
        "one-of-two": ({"ipv4Addr": ue.ipv4, "ipv6Prefix": ue.ipv6}, {"ipv4Addr": ue.ipv4, "ipv6Prefix": other.ipv6}),
    }[shared]
    first = binding(supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-a.example.com", **first_addresses)
    second = binding(supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-b.example.com", **second_addresses)
    first_id, _ = register(client, first)
    second_id, _ = register(client, second)
    assert_replaced(bsfd, first_id, second_id)


@pytest.mark.parametrize("difference", ["supi", "dnn", "snssai", "ip-domain", "address"])
def test_no_collision_when_something_differs(bsfd, client, difference):
    ue, other = Ue(), Ue()
    first, second = rivals(ue, ipv4Addr=ue.ipv4, ipDomain="d1")
    second.update({
        "supi": {"supi": other.supi},
        "dnn": {"dnn": other.dnn},
        "snssai": {"snssai": {"sst": 2, "sd": "000001"}},
        "ip-domain": {"ipDomain": "d2"},
        "address": {"ipv4Addr": other.ipv4},
    }[difference])
    first_id, _ = register(client, first)
    count = bsfd.count()
    second_id, _ = register(client, second)
    assert bsfd.count() == count + 1
    assert found(client, ipv4Addr=ue.ipv4, ipDomain="d1", supi=ue.supi, dnn="internet",
                 snssai=first["snssai"]) == first
    assert [e["type"] for e in bsfd.history(binding=first_id)] == ["BindingRegistered"]


def test_same_pcf_always_replaces(bsfd, client):
    """A refresh from the same PCF wins even with an older origination timestamp."""
    ue = Ue()
    first = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id(), pcfFqdn="pcf-a.example.com")
    refresh = dict(first, pcfSmFqdn="pcf-sm.example.com")
    first_id, _ = register(client, first, headers=headers(ts(10), ts(10)))
    count = bsfd.count()
    refresh_id, stored = register(client, refresh, headers=headers(ts(0), ts(0)))
    assert stored == refresh
    assert refresh_id != first_id
    assert found(client, ipv4Addr=ue.ipv4) == refresh
    assert_gone(client, first_id)
    assert bsfd.count() == count


def test_collision_detection_can_be_turned_off(bsfd_factory):
    server = bsfd_factory({"bindings.collision_detection": "false"})
    ue = Ue()
    first, second = rivals(ue)
    first_id, _ = register(server.client, first, headers=headers(ts(10)))
    register(server.client, second, headers=headers(ts(0)))
    assert server.count() == 2
    assert found(server.client, ipv4Addr=ue.ipv4) == second       # most recently created
    assert [e["type"] for e in server.history(binding=first_id)] == ["BindingRegistered"]
