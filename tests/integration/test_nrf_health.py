"""One NRF health view (seed §3.42, issue 10 §2) for every NRF user of bsfd: NFManagement
(register, heartbeats), Nnrf_NFDiscovery (alternate routing of the audit's PCF queries) and
access tokens. Two test NRFs (tests/peers/nrf_sim.py, strict to TS 29.510, each answering
discovery too): the primary answers everything with 503 and Retry-After; whichever user sees
it first, that NRF is then avoided by all of them for the Retry-After period (not the shorter
nrf.unhealthy_s), discovery and heartbeats go to the second NRF, and after the period the
primary is used again. Access tokens' failover, which no bsfd flow can trigger from outside,
is tested in tests/unit/test_nrf_token.c against the same view."""

import pathlib
import sys
import time

import pytest

from support import register, wait_until
from test_audit import SET, audited_binding, events, settings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
import nrf_sim  # noqa: E402
from pcf_sim import DiscoverySim, PcfSim  # noqa: E402

RETRY_AFTER = 4   # s, the primary's Retry-After
UNHEALTHY = 2     # s, nrf.unhealthy_s: shorter, so a recovery before RETRY_AFTER is wrong
NFM = "/nnrf-nfm/v1/nf-instances/"
DISC = "/nnrf-disc/v1/nf-instances"


@pytest.fixture
def world():
    """Two NRFs with discovery (the PCF set: a dead primary PCF and a live alternate)."""
    dead, alternate = PcfSim().start(), PcfSim().start()
    discs = [DiscoverySim(), DiscoverySim()]
    nrfs = [nrf_sim.NrfSim(heartbeat_s=1).start(), nrf_sim.NrfSim(heartbeat_s=1).start()]
    for nrf, disc in zip(nrfs, discs):
        disc.sets[SET] = [dead, alternate]
        disc.validity = 0  # not cached: every audit query searches
        nrf.discovery = disc
    dead.close()  # connection refused: every query of it goes to an alternate
    yield nrfs, dead, alternate
    for sim in nrfs:
        sim.close()
        assert not sim.violations, sim.violations
    for sim in discs:
        sim.close()
        assert not sim.violations, sim.violations
    alternate.close()
    assert not alternate.violations, alternate.violations


def status(server):
    answer = server.ops.get("/oc-bsf-configuration/v1/nrfStatus")
    assert answer.status_code == 200
    return answer.json()


def requests_after(nrf, t0, prefix=""):
    with nrf.lock:
        return [r for r in nrf.requests if r[0] > t0 and r[2].startswith(prefix)]


def confirmed(server, binding_id):
    return events(server, binding_id, "AuditConfirmed")


def test_a_failing_primary_is_avoided_by_every_user_for_its_retry_after(bsfd_factory, world):
    (a, b), dead, alternate = world
    server = bsfd_factory(settings(
        nrf__uri=f"{a.uri},{b.uri}", nrf__retry_min_ms="100", nrf__retry_max_ms="500",
        nrf__timeout_ms="4000", nrf__unhealthy_s=str(UNHEALTHY), nrf__primary_retries="0",
        nrf__discovery__timeout="5s", audit__query_timeout="6s"))
    wait_until(lambda: status(server).get("nrfInUse") == a.uri, 15, "registered at the primary")
    wait_until(lambda: a.of("PATCH"), 10, "a heartbeat at the primary")

    t0 = time.monotonic()
    a.fail_with(503, retry_after=RETRY_AFTER)
    first, _ = register(server.client, audited_binding(dead, "h1", pcfSetId=SET))
    wait_until(lambda: requests_after(a, t0), 10, "the primary's first failure")
    t1 = requests_after(a, t0)[0][0]
    # discovery and NFManagement on the second NRF, the primary unhealthy in the ops view
    wait_until(lambda: status(server).get("nrfInUse") == b.uri, 10, "registered at NRF 2")
    wait_until(lambda: confirmed(server, first), 15, "the first binding's audit")
    nrfs = status(server)["nrfs"]
    assert nrfs[0]["health"] == "UNHEALTHY" and nrfs[1]["health"] == "HEALTHY", nrfs
    assert nrfs[0]["unhealthyForMs"] > 0
    second, _ = register(server.client, audited_binding(dead, "h2", pcfSetId=SET))
    wait_until(lambda: confirmed(server, second), 15, "the second binding's audit")
    wait_until(lambda: requests_after(b, t1, NFM) and requests_after(b, t1, DISC), 10,
               "NFManagement and discovery at NRF 2")
    # past nrf.unhealthy_s but within the Retry-After: the primary still left alone
    time.sleep(max(0.0, t1 + UNHEALTHY + 1.2 - time.monotonic()))
    late = requests_after(a, t1 + 0.3)  # what was in flight at t1 aside
    # (a slow answer of NRF 2, past its timeouts, would make both unhealthy: A asked again)
    assert not late, ([(r[1], r[2]) for r in late], status(server))
    assert len(requests_after(b, t1, NFM)) >= 2  # registered there and heartbeating

    # the primary recovers; after its Retry-After it is used again by every user
    time.sleep(max(0.0, t1 + RETRY_AFTER - 0.5 - time.monotonic()))
    a.fail_with(None)
    wait_until(lambda: status(server).get("nrfInUse") == a.uri, 15, "back at the primary")
    assert requests_after(a, t1 + 0.3)[0][0] >= t1 + RETRY_AFTER - 0.6
    assert status(server)["nrfs"][0]["health"] == "HEALTHY"
    wait_until(lambda: b.of("DELETE"), 10, "NFDeregister at NRF 2 after failing back")
    t3 = time.monotonic()
    third, _ = register(server.client, audited_binding(dead, "h3", pcfSetId=SET))
    wait_until(lambda: confirmed(server, third), 15, "the third binding's audit")
    assert requests_after(a, t3, DISC), "discovery back at the primary"
    assert not requests_after(b, t3, DISC)


def test_every_nrf_unhealthy_the_least_recently_failed_is_asked_again(bsfd_factory, world):
    """Both NRFs fail (503 + a long Retry-After): bsfd does not go silent; when the primary
    answers again, registration and discovery find it without waiting the Retry-After."""
    (a, b), dead, alternate = world
    a.fail_with(503, retry_after=600)
    b.fail_with(503, retry_after=600)
    server = bsfd_factory(settings(
        nrf__uri=f"{a.uri},{b.uri}", nrf__retry_min_ms="100", nrf__retry_max_ms="400",
        nrf__timeout_ms="1000", nrf__primary_retries="0", audit__query_timeout="3s"))
    wait_until(lambda: len(a.of("PUT")) >= 2 and len(b.of("PUT")) >= 2, 15,
               "registration retried at both NRFs although both are unhealthy")
    a.fail_with(None)
    wait_until(lambda: status(server).get("nrfInUse") == a.uri, 15, "registered at the primary")
    t0 = time.monotonic()
    binding_id, _ = register(server.client, audited_binding(dead, "u1", pcfSetId=SET))
    wait_until(lambda: confirmed(server, binding_id), 15, "the audit through discovery")
    assert requests_after(a, t0, DISC)
