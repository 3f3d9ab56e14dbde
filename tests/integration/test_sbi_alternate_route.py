"""Alternate routing of egress requests (issue 10 §3, seed §3.23) and the cached
Nnrf_NFDiscovery behind it, seen through the audit's PCF queries (issue 12 §1): test PCFs
and strict discovery NRFs (tests/peers/pcf_sim.py, query and SearchResult validated against
TS29510_Nnrf_NFDiscovery.yaml) on HTTP/2 over loopback.

A binding's PCF that cannot be reached is replaced by another PCF of the binding's set; the
SearchResult is kept for its validityPeriod; the NRFs of nrf.uri are asked in order; after
sbi_client.alternate_route.max_alternates the query fails with a precise error."""

import pathlib
import socket
import sys
import time

import pytest

from support import metrics, register, wait_until
from test_audit import SET, audited_binding, events, live, removal, settings
from test_audit import discovery  # noqa: F401 (the fixture: a DiscoverySim)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
from pcf_sim import PcfSim  # noqa: E402

ALT = 'bsf_sbi_alternate_route_total{outcome="%s"}'
DISC = 'bsf_nf_discovery_total{outcome="%s"}'


@pytest.fixture
def pcfs():
    """Three PCFs of one set; the test closes some of them."""
    sims = [PcfSim().start() for _ in range(3)]
    yield sims
    for s in sims:
        if s._loop.thread.is_alive():  # not closed by the test
            s.close()
        assert not s.violations, s.violations


_DEAD_SOCKETS = []


def dead_uri():
    """An http:// apiRoot nobody listens on (connection refused). Its socket stays bound and
    never listens until the worker exits: closed, its port could be given to a server bound to
    port 0 (a simulator) and answer."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    _DEAD_SOCKETS.append(s)
    return f"http://127.0.0.1:{s.getsockname()[1]}"


def confirmed_by(server, binding_id):
    got = events(server, binding_id, "AuditConfirmed")
    return got[0]["audit"]["pcf"] if got else None


def alt_settings(nrf_uri, **more):
    return settings(nrf__uri=nrf_uri, audit__query_timeout="3s", **more)


def test_primary_down_an_alternate_of_the_set_answers(bsfd_factory, pcfs, discovery):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    primary.close()  # connection refused from now on
    server = bsfd_factory(alt_settings(discovery.uri))
    binding_id, _ = register(server.client, audited_binding(primary, "s1", pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, binding_id), 15, "the alternate's 2xx")
    assert confirmed_by(server, binding_id) == f"PCF-{alternate.instance_id}"
    assert live(server, binding_id)
    # the alternate got the same resource path as the binding's notificationUrl
    assert alternate.queries and {q[1] for q in alternate.queries} == {"s1"}
    searched = discovery.searches()
    assert searched and searched[0]["target-nf-set-id"] == SET
    assert searched[0]["requester-nf-instance-id"]  # the BSF says who asks
    m = metrics(server)
    assert m[ALT % "sent"] >= 1 and m[ALT % "answered"] == m[ALT % "sent"]
    assert m[ALT % "exhausted"] == 0


def test_the_lowest_priority_alternate_is_chosen(bsfd_factory, pcfs, discovery):
    primary, low, high = pcfs
    discovery.sets[SET] = [primary, high, low]
    discovery.priorities = {high.instance_id: 50, low.instance_id: 10}
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri))
    binding_id, _ = register(server.client, audited_binding(primary, "prio", pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, binding_id), 15, "the alternate's 2xx")
    assert confirmed_by(server, binding_id) == f"PCF-{low.instance_id}"
    assert not high.queries


def test_discovery_is_cached_for_the_validity_period(bsfd_factory, pcfs, discovery):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    discovery.validity = 3
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri))
    ids = [register(server.client, audited_binding(primary, f"c{i}", pcfSetId=SET))[0]
           for i in range(3)]
    wait_until(lambda: all(confirmed_by(server, i) for i in ids), 15, "three alternate 2xx")
    assert len(discovery.searches()) == 1, discovery.searches()  # the NRF asked once
    assert metrics(server)[DISC % "cache_hit"] >= 2
    time.sleep(3.2)  # past the validityPeriod: the NRF is asked again
    later, _ = register(server.client, audited_binding(primary, "later", pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, later), 15, "the alternate's 2xx after expiry")
    assert len(discovery.searches()) == 2


def test_first_nrf_down_the_second_is_asked(bsfd_factory, pcfs, discovery):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    primary.close()
    server = bsfd_factory(alt_settings(f"{dead_uri()},{discovery.uri}"))
    binding_id, _ = register(server.client, audited_binding(primary, "n2", pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, binding_id), 15, "the alternate's 2xx via NRF 2")
    assert confirmed_by(server, binding_id) == f"PCF-{alternate.instance_id}"
    assert len(discovery.searches()) == 1
    # the dead NRF is unhealthy in the view the NRF client and discovery share: whichever
    # found it first (NFRegister at start, or this search's failover), the other skips it
    nrfs = server.ops.get("/oc-bsf-configuration/v1/nrfStatus").json()["nrfs"]
    assert nrfs[0]["health"] == "UNHEALTHY" and nrfs[1]["health"] == "HEALTHY", nrfs


def test_retry_budget_exhausted_gives_a_precise_error(bsfd_factory, pcfs, discovery):
    primary, busy1, busy2 = pcfs
    busy1.mode = busy2.mode = "unavailable"  # 503 NF_CONGESTION
    discovery.sets[SET] = [primary, busy1, busy2]
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri, log__level="debug",
                                       sbi_client__alternate_route__max_alternates="1"))
    binding_id, _ = register(server.client, audited_binding(primary, "budget", pcfSetId=SET))
    wait_until(lambda: events(server, binding_id, "AuditFailed"), 15, "a failed audit")
    assert live(server, binding_id)
    # one alternate only (the budget), and it was asked
    assert len(busy1.queries_of("budget")) + len(busy2.queries_of("budget")) >= 1
    assert not (busy1.queries_of("budget") and busy2.queries_of("budget"))
    wait_until(lambda: "retry budget exhausted" in server.stderr_text(), 5, "the log line")
    line = next(l for l in server.stderr_text().splitlines() if "retry budget exhausted" in l)
    assert "1 alternate failed" in line and "max_alternates = 1" in line and "503" in line, line
    m = metrics(server)
    assert m[ALT % "exhausted"] >= 1 and m[ALT % "answered"] == 0


def test_no_alternate_routing_for_a_binding_without_a_set(bsfd_factory, pcfs, discovery):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri))
    binding_id, _ = register(server.client, audited_binding(primary, "noset"))
    wait_until(lambda: events(server, binding_id, "AuditFailed"), 15, "a failed audit")
    assert not alternate.queries and not discovery.searches()
    assert metrics(server)[ALT % "sent"] == 0


def test_alternate_routing_off_by_configuration(bsfd_factory, pcfs, discovery):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri,
                                       sbi_client__alternate_route__enabled="false"))
    binding_id, _ = register(server.client, audited_binding(primary, "off", pcfSetId=SET))
    wait_until(lambda: events(server, binding_id, "AuditFailed"), 15, "a failed audit")
    assert not alternate.queries


def test_the_audit_404_quorum_uses_the_cached_discovery_and_the_second_nrf(bsfd_factory, pcfs,
                                                                            discovery):
    """The audit's alternate PCF (404 from two PCFs of the set) is found through the same
    discovery: NRF 1 down, NRF 2 answers, and one search serves both bindings."""
    first, other, _ = pcfs
    first.mode = other.mode = "not_found"
    discovery.sets[SET] = [first, other]
    server = bsfd_factory(alt_settings(f"{dead_uri()},{discovery.uri}", audit__total_404="2",
                                       audit__require_different_pcf="true"))
    ids = [register(server.client, audited_binding(first, f"q{i}", pcfSetId=SET))[0]
           for i in range(2)]
    wait_until(lambda: all(removal(server, i) for i in ids), 20, "two removals")
    assert all(len(other.queries_of(f"q{i}")) == 1 for i in range(2))
    assert len(discovery.searches()) == 1, discovery.searches()


@pytest.fixture
def scp():
    from scp_sim import ScpSim
    sim = ScpSim("scp1").start()
    yield sim
    sim.close()


def alternate_via_scp(bsfd_factory, pcfs, discovery, scp, session):
    """The primary PCF down behind the SCP: the alternate answers through it. Returns the
    routed GETs and their 3gpp-Sbi-Target-apiRoot values."""
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri, scp__uris=scp.uri))
    binding_id, _ = register(server.client, audited_binding(primary, session, pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, binding_id), 20, "the alternate's 2xx via the SCP")
    assert confirmed_by(server, binding_id) == f"PCF-{alternate.instance_id}"
    routed = scp.routed("GET")
    roots = [r[3].get("3gpp-sbi-target-apiroot") for r in routed]
    assert primary.api_root in roots and alternate.api_root in roots
    assert roots.index(primary.api_root) < roots.index(alternate.api_root)
    return routed, roots


def test_through_an_scp_a_target_not_reachable_leads_to_an_alternate(bsfd_factory, pcfs,
                                                                        discovery, scp):
    """Model C: the SCP answers 504 TARGET_NF_NOT_REACHABLE for the dead PCF (the target
    failed, not the SCP); the alternate is asked through the same SCP."""
    _, roots = alternate_via_scp(bsfd_factory, pcfs, discovery, scp, "via")
    assert discovery.uri in roots  # the NRF through the SCP too


def test_the_scps_own_failure_is_no_reason_for_an_alternate_producer(bsfd_factory, pcfs,
                                                                      discovery, scp):
    primary, alternate, _ = pcfs
    discovery.sets[SET] = [primary, alternate]
    scp.fail_with(503, "NF_CONGESTION", own=True)
    server = bsfd_factory(alt_settings(discovery.uri, scp__uris=scp.uri))
    binding_id, _ = register(server.client, audited_binding(primary, "scpdown", pcfSetId=SET))
    wait_until(lambda: events(server, binding_id, "AuditFailed"), 15, "a failed audit")
    assert not alternate.queries and not primary.queries
    assert metrics(server)[ALT % "sent"] == 0


# ---- alternates with an apiPrefix (TS 29.501 §4.4.1, TS 29.510 NFService.apiPrefix) ------

@pytest.fixture
def prefixed():
    """A primary PCF under /site1/pcf and two alternates under /site2/pcf-b and /p."""
    sims = [PcfSim(prefix="/site1/pcf").start(), PcfSim(prefix="/site2/pcf-b").start(),
            PcfSim(prefix="/p").start()]
    yield sims
    for s in sims:
        if s._loop.thread.is_alive():
            s.close()
        assert not s.violations, s.violations  # every path began with the PCF's apiPrefix


def test_an_alternate_with_an_api_prefix_gets_the_path_below_its_api_root(bsfd_factory,
                                                                            prefixed, discovery):
    primary, alternate, _ = prefixed
    discovery.sets[SET] = [primary, alternate]
    discovery.service_list = True  # the NFService in nfServiceList, with its apiPrefix
    primary.close()
    server = bsfd_factory(alt_settings(discovery.uri))
    binding_id, _ = register(server.client, audited_binding(primary, "pfx", pcfSetId=SET))
    wait_until(lambda: confirmed_by(server, binding_id), 15, "the alternate's 2xx")
    assert confirmed_by(server, binding_id) == f"PCF-{alternate.instance_id}"
    # the sim checked /site2/pcf-b/npcf-custom-binding/v1/sessions/pfx: the resource path
    # below the primary's apiRoot (/site1/pcf dropped) under the alternate's
    assert {q[1] for q in alternate.queries} == {"pfx"}


def test_through_an_scp_the_target_api_root_carries_the_api_prefix(bsfd_factory, prefixed,
                                                                     discovery):
    """Model C: 3gpp-Sbi-Target-apiRoot is the target's apiRoot with its apiPrefix, and the
    SCP (with its own prefix) gets the path below it."""
    from scp_sim import ScpSim
    scp = ScpSim("scp1", prefix="/scp-a").start()
    try:
        primary, alternate, _ = prefixed
        routed, _ = alternate_via_scp(bsfd_factory, prefixed, discovery, scp, "vp")
        assert primary.api_root.endswith("/site1/pcf")
        assert alternate.api_root.endswith("/site2/pcf-b")
        pcf_paths = {r[2] for r in routed if "/nnrf-" not in r[2]}  # discovery went there too
        assert pcf_paths == {"/scp-a/npcf-custom-binding/v1/sessions/vp"}
        assert {q[1] for q in alternate.queries} == {"vp"}
    finally:
        scp.close()


def test_the_audit_alternate_pcf_gets_its_api_prefix(bsfd_factory, prefixed, discovery):
    """The 404 quorum's other PCF of the set (§3.34) is asked under its own apiPrefix."""
    first, other, _ = prefixed
    first.mode = other.mode = "not_found"
    discovery.sets[SET] = [first, other]
    server = bsfd_factory(alt_settings(discovery.uri, audit__total_404="2",
                                       audit__require_different_pcf="true"))
    binding_id, _ = register(server.client, audited_binding(first, "q404", pcfSetId=SET))
    wait_until(lambda: removal(server, binding_id), 20, "the removal after two PCFs' 404")
    assert len(first.queries_of("q404")) == 1 and len(other.queries_of("q404")) == 1
