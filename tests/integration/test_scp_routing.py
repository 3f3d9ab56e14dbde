"""Model C: bsfd's outbound requests (here: to the NRF) through SCPs (tests/peers/scp_sim.py)
with 3gpp-Sbi-Target-apiRoot; seed 001 (an SCP failing with its own Server header, or timing
out, is temporarily unavailable and another SCP is used; an error naming the target NF is no
SCP failure) and seed §3.18 (OPTIONS probes)."""

import pathlib
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))

import nrf_sim  # noqa: E402
import scp_sim  # noqa: E402
from support import wait_until  # noqa: E402

PREFIX = "/nnrf-nfm/v1/nf-instances/"


@pytest.fixture
def lab():
    made = []

    class Lab:
        def nrf(self):
            sim = nrf_sim.NrfSim(heartbeat_s=1).start()
            made.append(sim)
            return sim

        def scp(self, name, prefix=""):
            sim = scp_sim.ScpSim(name, prefix).start()
            made.append(sim)
            return sim
    yield Lab()
    for sim in made:
        if isinstance(sim, nrf_sim.NrfSim):
            assert not sim.violations, sim.violations
        sim.close()


def settings(nrf, *scps, **more):
    out = {"nrf.uri": nrf.uri, "scp.uris": ";".join(s.uri for s in scps),
           "nrf.retry_min_ms": "100", "nrf.retry_max_ms": "500", "nrf.timeout_ms": "1500",
           "nrf.primary_retries": "1", "scp.temp_unavailable_s": "30",
           "nrf.unhealthy_s": "1"}
    out.update(more)
    return out


def scp_status(bsfd):
    answer = bsfd.ops.get("/oc-bsf-configuration/v1/scpStatus")
    assert answer.status_code == 200
    return [s["status"] for s in answer.json()["scps"]]


def registered(nrf):
    puts = nrf.of("PUT")
    return puts and nrf.registered(puts[0][2][len(PREFIX):])


def test_register_through_scp(lab, bsfd_factory):
    nrf, scp = lab.nrf(), lab.scp("scp1.example.org", prefix="/scp")
    bsfd_factory(settings(nrf, scp))
    wait_until(lambda: registered(nrf), what="registered through the SCP")
    wait_until(lambda: nrf.of("PATCH"), what="a heartbeat through the SCP")
    put = scp.routed("PUT")[0]
    assert put[3]["3gpp-sbi-target-apiroot"] == nrf.uri
    assert put[2].startswith("/scp" + PREFIX)  # the SCP's apiPrefix, then the target's path
    assert all(r[3].get("via") == "2.0 scp1.example.org" for r in nrf.requests)


def test_scp_failing_with_its_own_server_header_is_avoided(lab, bsfd_factory):
    nrf, scp1, scp2 = lab.nrf(), lab.scp("scp1.example.org"), lab.scp("scp2.example.org")
    scp1.fail_with(503, "NF_CONGESTION", own=True)
    bsfd = bsfd_factory(settings(nrf, scp1, scp2))
    wait_until(lambda: registered(nrf), what="registered through scp2")
    assert len(scp1.routed("PUT")) == 1  # reselected at once, not retried on scp1
    assert scp_status(bsfd) == ["TEMPORARILY_UNAVAILABLE", "AVAILABLE"]
    wait_until(lambda: len(scp2.routed("PATCH")) >= 2, what="heartbeats through scp2")
    assert not scp1.routed("PATCH")


def test_error_naming_the_target_is_no_scp_failure(lab, bsfd_factory):
    nrf, scp1, scp2 = lab.nrf(), lab.scp("scp1.example.org"), lab.scp("scp2.example.org")
    scp1.fail_with(504, "TARGET_NF_NOT_REACHABLE", own=True)
    bsfd = bsfd_factory(settings(nrf, scp1, scp2))
    wait_until(lambda: len(scp1.routed("PUT")) >= 2, what="NFRegister attempts")
    assert not scp2.routed()
    assert scp_status(bsfd) == ["AVAILABLE", "AVAILABLE"]
    scp1.fail_with(503, own=False)  # a 503 of the target NF, relayed: no reselection either
    time.sleep(1)
    assert not scp2.routed()
    assert scp_status(bsfd) == ["AVAILABLE", "AVAILABLE"]
    scp1.fail_with(None)
    wait_until(lambda: registered(nrf), what="registered through scp1")


def test_scp_timeout_marks_it_unavailable(lab, bsfd_factory):
    nrf, scp1, scp2 = lab.nrf(), lab.scp("scp1.example.org"), lab.scp("scp2.example.org")
    scp1.delay_ms = 10000
    bsfd = bsfd_factory(settings(nrf, scp1, scp2))
    wait_until(lambda: registered(nrf), what="registered through scp2")
    assert scp2.routed("PUT")
    assert scp_status(bsfd)[0] == "TEMPORARILY_UNAVAILABLE"


def test_only_scp_unavailable_is_still_used(lab, bsfd_factory):
    nrf, scp1 = lab.nrf(), lab.scp("scp1.example.org")
    scp1.fail_with(503, own=True)
    bsfd = bsfd_factory(settings(nrf, scp1))
    wait_until(lambda: len(scp1.routed("PUT")) >= 2, what="NFRegister attempts")
    assert scp_status(bsfd) == ["TEMPORARILY_UNAVAILABLE"]
    scp1.fail_with(None)
    wait_until(lambda: registered(nrf), what="registered through scp1")
    wait_until(lambda: scp_status(bsfd) == ["AVAILABLE"], what="available after a success")


def test_options_probes_steer_traffic(lab, bsfd_factory):
    nrf, scp1, scp2 = lab.nrf(), lab.scp("scp1.example.org"), lab.scp("scp2.example.org")
    bsfd = bsfd_factory(settings(nrf, scp1, scp2, **{"scp.health_interval_ms": "200",
                                                     "scp.health_failures": "2"}))
    wait_until(lambda: registered(nrf), what="registered through scp1")
    wait_until(lambda: scp1.options() and scp2.options(), what="OPTIONS probes")
    assert not scp2.routed()
    scp1.options_status = 503
    wait_until(lambda: scp_status(bsfd)[0] == "UNHEALTHY", what="scp1 unhealthy")
    n = len(scp2.routed("PATCH"))
    wait_until(lambda: len(scp2.routed("PATCH")) > n, what="heartbeats through scp2")
    scp1.options_status = None
    wait_until(lambda: scp_status(bsfd)[0] == "AVAILABLE", what="scp1 healthy again")
    n = len(scp1.routed("PATCH"))
    wait_until(lambda: len(scp1.routed("PATCH")) > n, what="heartbeats back through scp1")
    metrics = bsfd.ops.get("/metrics").text
    assert f'bsf_scp_available{{scp="{scp1.uri}"}} 1' in metrics
