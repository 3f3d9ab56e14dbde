"""The binding audit (issue 12 §1, §2; seed §3.34, §3.34.1, §3.6): each decision path against
test PCFs on loopback HTTP/2 (404, 2xx, 503, hanging), the attempt counting, max TTL, the
404 quorum from the same and from different PCFs (NF discovery), the query rate limit, the
audit events in `bsfctl history`, the deletion log and kill -9 during an audit. Durations are
seconds, set by configuration."""

import json
import pathlib
import re
import sys
import time

import pytest

from conftest import refused_at_start
from support import Ue, assert_problem, binding, metrics, patch, post_binding, register, \
    serving, wait_until

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
from pcf_sim import DiscoverySim, PcfSim  # noqa: E402

VENDOR = "vendorSpecific-000111"
FAST = {"audit.interval": "1s", "audit.min_ttl": "1s", "audit.max_ttl": "1h",
        "audit.query_timeout": "500ms", "log.level": "info"}


@pytest.fixture
def pcf():
    yield from serving(PcfSim())


def settings(**more):
    s = dict(FAST)
    s.update({k.replace("__", "."): str(v) for k, v in more.items()})
    return s


def audited_binding(pcf_sim, session, ue=None, **members):
    ue = ue or Ue()
    vendor = {"version": 1, "notificationUrl": pcf_sim.url(session),
              "createBindingTime": "2026-12-01T10:00:00Z"}
    return binding(supi=ue.supi, gpsi=ue.gpsi, ipv4Addr=ue.ipv4, **{VENDOR: vendor}, **members)


def live(server, binding_id):
    return any(e["type"] == "BindingRegistered" for e in server.history(binding=binding_id)) and \
        not any(e["type"] == "BindingDeregistered" for e in server.history(binding=binding_id))


def events(server, binding_id, kind=None):
    return [e for e in server.history(binding=binding_id) if kind is None or e["type"] == kind]


def removal(server, binding_id):
    got = events(server, binding_id, "BindingDeregistered")
    return got[0] if got else None


def deletion_lines(server):
    out = []
    for line in server.stderr_text().splitlines():
        m = re.search(r" (INFO|WARN|DEBUG|ERROR) stale-binding-deletion: (\{.*\})$", line)
        if m:
            out.append((m.group(1), json.loads(m.group(2))))
    return out


# ---- configuration and input -------------------------------------------------------------

@pytest.mark.parametrize("bad, named", [
    ({"audit.min_ttl": "2h", "audit.max_ttl": "1h"}, "audit.max_ttl"),
    ({"audit.interval": "10"}, "audit.interval"),            # a duration needs its unit
    ({"audit.total_404": "0"}, "audit.total_404"),
    ({"audit.deletion_log_level": "trace"}, "audit.deletion_log_level"),
])
def test_bad_audit_settings_exit_2(tmp_path, bad, named):
    refused_at_start(tmp_path, bad, named)


@pytest.mark.parametrize("vendor, pointer", [
    ({"notificationUrl": "ftp://pcf/x"}, f"/{VENDOR}/notificationUrl"),
    ({"notificationUrl": "http:///no-authority"}, f"/{VENDOR}/notificationUrl"),
    ({"notificationUrl": 7}, f"/{VENDOR}/notificationUrl"),
    ({"createBindingTime": "yesterday"}, f"/{VENDOR}/createBindingTime"),
    ({"version": -1}, f"/{VENDOR}/version"),
    ("not an object", f"/{VENDOR}"),
])
def test_bad_vendor_attribute_is_400_with_its_pointer(bsfd_factory, vendor, pointer):
    server = bsfd_factory({"audit.enabled": "false"})
    ue = Ue()
    resp = post_binding(server.client, binding(supi=ue.supi, ipv4Addr=ue.ipv4, **{VENDOR: vendor}))
    assert_problem(resp, 400, "OPTIONAL_IE_INCORRECT", pointer)


def test_vendor_attribute_is_kept_and_echoed(bsfd_factory, pcf):
    server = bsfd_factory({"audit.enabled": "false"})
    body = audited_binding(pcf, "echo")
    binding_id, stored = register(server.client, body)
    assert stored[VENDOR] == body[VENDOR]
    assert events(server, binding_id)[0]["binding"][VENDOR] == body[VENDOR]


# ---- decision paths ----------------------------------------------------------------------

def test_pcf_404_removes_the_binding_with_reason_and_deletion_log(bsfd_factory, pcf):
    pcf.mode = "not_found"
    server = bsfd_factory(settings())
    binding_id, _ = register(server.client, audited_binding(pcf, "gone"))
    created = time.monotonic()
    wait_until(lambda: removal(server, binding_id), 15, "the audit removing the binding")
    assert removal(server, binding_id)["reason"] == "audit_not_found"
    first = pcf.queries_of("gone")[0][0]
    assert first - created >= 0.9, "queried before audit.min_ttl"
    (level, line), = deletion_lines(server)
    assert level == "INFO"
    assert line["reason"] == "404 Response received from PCF"
    assert line["bindingId"] == binding_id
    assert line["supi"] == line["gpsi"] == line["ipv4Addr"] == "XXXX"
    assert line["dnn"] == "internet" and line["snssai"]["sst"] == 1
    assert line["auditAttempts"] == 0 and "lastAuditedDateTime" not in line
    m = metrics(server)
    assert m['bsf_stale_bindings_removed_total{reason="audit_not_found"}'] == 1
    assert m['bsf_audit_answers_total{answer="not_found"}'] >= 1


def test_pcf_2xx_keeps_it_confirmed_and_not_asked_again_before_the_interval(bsfd_factory, pcf):
    server = bsfd_factory(settings(audit__interval="2s"))
    binding_id, _ = register(server.client, audited_binding(pcf, "alive"))
    wait_until(lambda: len(events(server, binding_id, "AuditConfirmed")) >= 2, 20,
               "two confirmations")
    confirmed = events(server, binding_id, "AuditConfirmed")
    assert confirmed[0]["audit"]["attempts"] == 0
    assert confirmed[0]["audit"]["lastAudited"] >= 0
    assert confirmed[1]["audit"]["lastAudited"] > confirmed[0]["audit"]["lastAudited"]
    assert confirmed[0]["audit"]["pcf"] == f"PCF-{pcf.instance_id}"
    times = [q[0] for q in pcf.queries_of("alive")]
    assert all(b - a >= 1.8 for a, b in zip(times, times[1:])), times
    assert live(server, binding_id)


def test_503_counts_attempts_and_max_ttl_removes_after_min_attempts(bsfd_factory, pcf):
    pcf.mode = "unavailable"
    server = bsfd_factory(settings(audit__max_ttl="4s", audit__min_attempts="3"))
    binding_id, _ = register(server.client, audited_binding(pcf, "busy"))
    created = time.monotonic()
    wait_until(lambda: removal(server, binding_id), 25, "max TTL removing the binding")
    gone = time.monotonic()
    failed = [e["audit"]["attempts"] for e in events(server, binding_id, "AuditFailed")]
    assert failed[:3] == [1, 2, 3], failed
    assert removal(server, binding_id)["reason"] == "audit_max_ttl"
    assert gone - created >= 3.9
    (_, line), = deletion_lines(server)
    assert line["reason"] == "Max TTL Reached" and line["auditAttempts"] >= 3


def test_max_ttl_waits_for_min_attempts(bsfd_factory, pcf):
    """Past max TTL but with fewer attempts than audit.min_attempts: still there."""
    pcf.mode = "unavailable"
    server = bsfd_factory(settings(audit__max_ttl="1s", audit__min_attempts="4",
                                   audit__interval="1s"))
    binding_id, _ = register(server.client, audited_binding(pcf, "patient"))
    wait_until(lambda: len(events(server, binding_id, "AuditFailed")) >= 3, 15, "3 attempts")
    assert not removal(server, binding_id)
    wait_until(lambda: removal(server, binding_id), 15, "the removal after 4 attempts")
    assert len(events(server, binding_id, "AuditFailed")) >= 4


def test_a_hanging_pcf_times_out_and_counts_an_attempt(bsfd_factory, pcf):
    pcf.mode = "hang"
    server = bsfd_factory(settings(audit__query_timeout="300ms"))
    binding_id, _ = register(server.client, audited_binding(pcf, "silent"))
    wait_until(lambda: len(events(server, binding_id, "AuditFailed")) >= 2, 15, "two timeouts")
    assert [e["audit"]["attempts"] for e in events(server, binding_id, "AuditFailed")][:2] == [1, 2]
    assert live(server, binding_id)


def test_without_pcf_queries_each_audit_marks_suspected(bsfd_factory, pcf):
    server = bsfd_factory(settings(audit__query_pcf="false", audit__max_ttl="3s",
                                   audit__min_attempts="2"))
    binding_id, _ = register(server.client, audited_binding(pcf, "unasked"))
    wait_until(lambda: removal(server, binding_id), 20, "max TTL removal")
    suspected = [e["audit"]["attempts"] for e in events(server, binding_id, "AuditSuspected")]
    assert suspected[:2] == [1, 2], suspected
    assert removal(server, binding_id)["reason"] == "audit_max_ttl"
    assert not pcf.queries


def test_an_update_revalidates_and_resets_the_attempts(bsfd_factory, pcf):
    pcf.mode = "unavailable"
    server = bsfd_factory(settings(audit__min_ttl="2s"))
    binding_id, _ = register(server.client, audited_binding(pcf, "touched"))
    wait_until(lambda: len(events(server, binding_id, "AuditFailed")) >= 2, 15, "two attempts")
    resp = patch(server.client, binding_id, {"pcfDiamHost": "pcf9.example.com", "pcfDiamRealm": "example.com"})
    assert resp.status_code == 200, resp.text
    seen = len(events(server, binding_id, "AuditFailed"))
    wait_until(lambda: len(events(server, binding_id, "AuditFailed")) > seen, 15,
               "an audit after the update")
    after = events(server, binding_id, "AuditFailed")[seen]
    assert after["audit"]["attempts"] == 1, after
    assert after["audit"]["lastAudited"] > 0  # the update counts as the last confirmation


# ---- the 404 quorum ------------------------------------------------------------------------

def test_total_404_asks_the_same_pcf_again_within_the_audit(bsfd_factory, pcf):
    pcf.mode = "not_found"
    server = bsfd_factory(settings(audit__total_404="3"))
    binding_id, _ = register(server.client, audited_binding(pcf, "thrice"))
    wait_until(lambda: removal(server, binding_id), 15, "the removal after three 404s")
    times = [q[0] for q in pcf.queries_of("thrice")]
    assert len(times) == 3 and times[-1] - times[0] < 0.9, times  # one audit, three asks


@pytest.fixture
def discovery():
    yield from serving(DiscoverySim())


SET = "set1.pcfset.5gc.mnc001.mcc001"


def test_different_pcf_rule_asks_an_alternate_of_the_set(bsfd_factory, pcf, discovery):
    pcf.mode = "not_found"
    other = PcfSim("not_found").start()
    try:
        discovery.sets[SET] = [pcf, other]
        server = bsfd_factory(settings(audit__total_404="2", audit__require_different_pcf="true",
                                       nrf__uri=discovery.uri))
        binding_id, _ = register(server.client, audited_binding(pcf, "pair", pcfSetId=SET))
        wait_until(lambda: removal(server, binding_id), 15, "two 404s from two PCFs")
        assert len(pcf.queries_of("pair")) == 1 and len(other.queries_of("pair")) == 1
        asked = [q for _, p, q in discovery.requests if p == "/nnrf-disc/v1/nf-instances"]
        assert asked and asked[0]["target-nf-set-id"] == SET
        # the alternate answers 2xx: the binding stays
        other.mode = "found"
        kept, _ = register(server.client, audited_binding(pcf, "split", pcfSetId=SET))
        wait_until(lambda: events(server, kept, "AuditConfirmed"), 15, "the alternate's 2xx")
        assert live(server, kept)
        assert events(server, kept, "AuditConfirmed")[0]["audit"]["pcf"] == \
            f"PCF-{other.instance_id}"
        assert not other.violations, other.violations
    finally:
        other.close()


def test_different_pcf_rule_without_an_alternate_keeps_the_binding_suspected(bsfd_factory, pcf,
                                                                              discovery):
    """The set has no other PCF (or discovery fails): one 404 does not make the quorum."""
    pcf.mode = "not_found"
    discovery.sets[SET] = [pcf]
    server = bsfd_factory(settings(audit__total_404="2", audit__require_different_pcf="true",
                                   nrf__uri=discovery.uri))
    binding_id, _ = register(server.client, audited_binding(pcf, "alone", pcfSetId=SET))
    wait_until(lambda: events(server, binding_id, "AuditSuspected"), 15, "a suspected audit")
    got = events(server, binding_id, "AuditSuspected")[0]["audit"]
    assert got["notFound"] == 1 and got["attempts"] == 1
    discovery.fail = 503
    seen = len(events(server, binding_id, "AuditSuspected"))
    wait_until(lambda: len(events(server, binding_id, "AuditSuspected")) > seen, 15,
               "an audit while discovery fails")
    assert live(server, binding_id)


# ---- rate limit ----------------------------------------------------------------------------

def test_queries_never_exceed_max_queries_per_s(bsfd_factory, pcf):
    server = bsfd_factory(settings(audit__max_queries_per_s="5", audit__min_ttl="2s"))
    ids = [register(server.client, audited_binding(pcf, f"many-{i}"))[0] for i in range(20)]
    wait_until(lambda: len(pcf.queries) >= 20, 20, "20 audit queries")
    times = sorted(q[0] for q in pcf.queries)
    # 20 queries at 5/s with a burst of 1: about 3.8 s from the first to the last
    assert times[-1] - times[0] >= 3.4, times[-1] - times[0]
    for start in range(len(times)):
        in_window = [t for t in times if times[start] <= t < times[start] + 1.0]
        assert len(in_window) <= 6, in_window
    assert all(live(server, i) for i in ids[:3])


# ---- the deletion log's level and masking --------------------------------------------------

def test_deletion_log_in_clear_when_configured(bsfd_factory, pcf):
    pcf.mode = "not_found"
    server = bsfd_factory(settings(audit__deletion_log_ue_ids="true",
                                   audit__deletion_log_level="warn"))
    ue = Ue()
    body = audited_binding(pcf, "clear", ue=ue)
    del body["gpsi"]
    binding_id, _ = register(server.client, body)
    wait_until(lambda: deletion_lines(server), 15, "the deletion log line")
    (level, line), = deletion_lines(server)
    assert level == "WARN" and line["supi"] == ue.supi and line["ipv4Addr"] == ue.ipv4
    assert "gpsi" not in line  # absent members are left out, not null


def test_deletion_log_more_verbose_than_the_service_level_is_not_written(bsfd_factory, pcf):
    pcf.mode = "not_found"
    server = bsfd_factory(settings(audit__deletion_log_level="debug"))
    binding_id, _ = register(server.client, audited_binding(pcf, "quiet"))
    wait_until(lambda: removal(server, binding_id), 15, "the removal")
    assert deletion_lines(server) == []
    assert metrics(server)['bsf_stale_bindings_removed_total{reason="audit_not_found"}'] == 1


# ---- crash ---------------------------------------------------------------------------------

def test_kill9_during_an_audit_loses_nothing_and_the_next_run_audits_again(bsfd_factory, pcf):
    pcf.mode = "hang"
    server = bsfd_factory(settings(audit__query_timeout="30s"))
    ids = [register(server.client, audited_binding(pcf, f"crash-{i}"))[0] for i in range(5)]
    wait_until(lambda: len(pcf.queries) >= 5, 15, "queries in flight")
    server.kill9()
    assert server.bsfctl("stats", "--json").returncode == 0
    pcf.mode = "not_found"
    server.start()
    wait_until(lambda: all(removal(server, i) for i in ids), 20, "the audit after restart")
    assert all(removal(server, i)["reason"] == "audit_not_found" for i in ids)


def test_reregistration_starts_a_fresh_audit_state(bsfd_factory, pcf):
    """Seed §3.6: the PCF registers the session again; the new binding replaces the old one
    (reason reregistered) and its audit starts from nothing."""
    pcf.mode = "unavailable"
    server = bsfd_factory(settings(audit__min_ttl="2s", bindings__collision_detection="true"))
    ue = Ue()
    body = audited_binding(pcf, "again", ue=ue)
    old, _ = register(server.client, body)
    wait_until(lambda: len(events(server, old, "AuditFailed")) >= 2, 15, "two attempts")
    new, _ = register(server.client, body)
    assert new != old
    assert removal(server, old)["reason"] == "reregistered"
    wait_until(lambda: events(server, new, "AuditFailed"), 15, "the new binding's first audit")
    assert events(server, new, "AuditFailed")[0]["audit"]["attempts"] == 1


def test_complete_shutdown_pauses_the_audit_and_normal_resumes_it(bsfd_factory, pcf):
    """Seed 3.39: in COMPLETE_SHUTDOWN no PCF is queried and nothing is removed."""
    pcf.mode = "not_found"
    server = bsfd_factory(settings())
    state = "/oc-bsf-configuration/v1/operationalState"
    binding_id, _ = register(server.client, audited_binding(pcf, "paused"))
    resp = server.admin.put(state, json={"operationalState": "COMPLETE_SHUTDOWN"})
    assert resp.status_code == 200, resp.text
    time.sleep(3.5)  # past audit.min_ttl and three audit intervals
    assert pcf.queries_of("paused") == []
    assert live(server, binding_id)
    assert server.admin.put(state, json={"operationalState": "NORMAL"}).status_code == 200
    wait_until(lambda: removal(server, binding_id), 15, "the audit resuming and removing it")
