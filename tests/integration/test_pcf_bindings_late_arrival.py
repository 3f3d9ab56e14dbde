"""Late arrival (seed §3.21), with sbi.late_arrival = true: a request whose
3gpp-Sbi-Origination-Timestamp (else 3gpp-Sbi-Sender-Timestamp) plus 3gpp-Sbi-Max-Rsp-Time
lies in the past gets 504 TIMED_OUT_REQUEST and has no effect. A missing, negative or
unparseable header disables the check. Off by default."""

import datetime

import pytest

from support import (Ue, assert_not_found, assert_problem, binding, found, post_binding, register,
                     sbi_time, utc_now)

ORIGINATION = "3gpp-Sbi-Origination-Timestamp"
SENDER = "3gpp-Sbi-Sender-Timestamp"
MAX_RSP_TIME = "3gpp-Sbi-Max-Rsp-Time"


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    return module_bsfd_factory({"sbi.late_arrival": "true"})


def ago(seconds):
    return sbi_time(utc_now() - datetime.timedelta(seconds=seconds))


@pytest.mark.parametrize("headers", [
    lambda: {ORIGINATION: ago(10), MAX_RSP_TIME: "1000"},
    lambda: {SENDER: ago(10), MAX_RSP_TIME: "1000"},
    lambda: {ORIGINATION: ago(10), SENDER: ago(0), MAX_RSP_TIME: "1000"},   # origination first
    lambda: {ORIGINATION: ago(3600), MAX_RSP_TIME: "0"},
], ids=["origination", "sender", "origination-before-sender", "zero-budget"])
def test_late_request_gets_504_and_has_no_effect(bsfd, client, headers):
    ue = Ue()
    count = bsfd.count()
    resp = post_binding(client, binding(ipv4Addr=ue.ipv4), headers=headers())
    assert_problem(resp, 504, "TIMED_OUT_REQUEST")
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert bsfd.count() == count


@pytest.mark.parametrize("headers", [
    lambda: {ORIGINATION: ago(0), MAX_RSP_TIME: "60000"},
    lambda: {SENDER: ago(1), MAX_RSP_TIME: "60000"},
    lambda: {ORIGINATION: ago(0), SENDER: ago(3600), MAX_RSP_TIME: "60000"},  # origination first
    lambda: {ORIGINATION: ago(3600)},                                         # no budget
    lambda: {ORIGINATION: ago(3600), MAX_RSP_TIME: "-5"},
    lambda: {ORIGINATION: ago(3600), MAX_RSP_TIME: "soon"},
    lambda: {ORIGINATION: "a while ago", MAX_RSP_TIME: "1000"},
    lambda: {MAX_RSP_TIME: "1"},                                              # no timestamp
], ids=["fresh-origination", "fresh-sender", "fresh-origination-old-sender", "no-max-rsp-time",
        "negative-max-rsp-time", "unparseable-max-rsp-time", "unparseable-timestamp", "no-timestamp"])
def test_request_in_time_or_without_valid_headers_is_served(client, headers):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    _, stored = register(client, body, headers=headers())
    assert stored == body
    assert found(client, ipv4Addr=ue.ipv4) == body


def test_late_arrival_is_off_by_default(bsfd_factory):
    server = bsfd_factory()
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    _, stored = register(server.client, body, headers={ORIGINATION: ago(3600), MAX_RSP_TIME: "1"})
    assert stored == body
