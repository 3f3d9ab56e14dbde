"""NF scoring for a site (seed 3.41): the score's factors from the running bsfd (SBI
traffic, the NRF registration), the metrics, the on-demand route, and the NRF heartbeat's
load taken from the measured TPS."""

import json
import pathlib
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))

import nrf_sim  # noqa: E402
from support import metrics, serving, wait_until  # noqa: E402

PATH = "/oc-bsf-configuration/v1/nfScore"
FAST_NRF = {"nrf.retry_min_ms": "100", "nrf.retry_max_ms": "500", "nrf.timeout_ms": "1000"}
SCORING = {"nf_scoring.enabled": "true", "nf_scoring.interval": "1s",
           "nf_scoring.max_tps": "20"}


def score(bsfd):
    answer = bsfd.ops.get(PATH)
    assert answer.status_code == 200, answer.text
    return answer.json()


def discoveries_for(bsfd, seconds, per_second=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(per_second // 10):
            assert bsfd.client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}).status_code \
                in (200, 204, 404)
        time.sleep(0.1)


@pytest.fixture
def nrf():
    yield from serving(nrf_sim.NrfSim(heartbeat_s=1))


def test_disabled_by_default(bsfd_factory):
    bsfd = bsfd_factory()
    assert score(bsfd) == {"enabled": False}
    assert not [m for m in metrics(bsfd) if m.startswith("bsf_nf_score")]


def test_single_site_without_nrf_scores_everything_but_tps(bsfd_factory):
    bsfd = bsfd_factory(SCORING)
    s = score(bsfd)
    assert s["enabled"] is True
    f = s["factors"]
    # SBI is the only service and serves; no connection expected; no replication link
    assert (f["service"], f["connection"], f["replication"], f["locality"], f["alerts"]) == \
        (30, 20, 30, 5, 0)
    assert s["score"] == pytest.approx(f["tps"] + 85)
    m = metrics(bsfd)
    assert m["bsf_nf_score_factor{factor=\"service\"}"] == 30
    assert "bsf_nf_score" in m and "bsf_nf_scoring_tps" in m


def test_traffic_fills_the_tps_factor(bsfd_factory):
    bsfd = bsfd_factory(SCORING)
    discoveries_for(bsfd, 2.5)
    s = score(bsfd)  # on demand: the rate since the last continuous sample
    assert s["tps"] > 20 and s["factors"]["tps"] == 20 and s["load"] == 100
    time.sleep(2.2)  # two idle intervals: the continuous score sees the rate fall
    m = metrics(bsfd)
    assert m["bsf_nf_scoring_tps"] < 20
    assert m["bsf_nf_score_factor{factor=\"tps\"}"] < 20


def test_nrf_registration_is_a_service_and_its_absence_an_alert(nrf, bsfd_factory):
    bsfd = bsfd_factory({**SCORING, **FAST_NRF, "nrf.uri": nrf.uri})
    wait_until(lambda: nrf.of("PUT"), what="an NFRegister")
    wait_until(lambda: score(bsfd)["factors"]["service"] == 30, what="registered: 2 of 2")
    assert score(bsfd)["factors"]["alerts"] == 0
    nrf.fail_with(500)  # the NRF fails: the heartbeat fails, bsfd registers again and again
    s = wait_until(lambda: (lambda s: s if s["factors"]["service"] == 15 else None)(score(bsfd)),
                   timeout=15, what="the NRF service lost")
    assert s["factors"]["alerts"] >= 1  # a major alert while no NRF has us registered


def test_heartbeat_load_is_the_measured_tps(nrf, bsfd_factory):
    bsfd = bsfd_factory({**SCORING, **FAST_NRF, "nrf.uri": nrf.uri, "nrf.load": "7"})
    wait_until(lambda: nrf.of("PATCH"), what="a first heartbeat")
    discoveries_for(bsfd, 3)

    def loads():
        return [op["value"] for _, _, _, _, body in nrf.of("PATCH")
                for op in json.loads(body) if op["path"] == "/load"]
    wait_until(lambda: 100 in loads(), timeout=5, what="a heartbeat with load 100")
    assert 7 not in loads()  # nrf.load is only the fallback when scoring is off
