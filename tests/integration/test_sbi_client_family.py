"""The SBI client's address family for peers named by FQDN (issue 13 §6, seed §3.8,
sbi_client.preferred_family), against the test NRF (tests/peers/nrf_sim.py, IPv4 only)
named `localhost`. Strict families never connect to the other one; a preference uses the
other family when the name has only that."""

import pathlib
import socket
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))

import nrf_sim  # noqa: E402
from support import serving, wait_until  # noqa: E402

PREFIX = "/nnrf-nfm/v1/nf-instances/"
FAST = {"nrf.retry_min_ms": "100", "nrf.retry_max_ms": "500", "nrf.timeout_ms": "1000",
        "nrf.unhealthy_s": "2", "nf.fqdn": "bsf1.example.org"}


def localhost_families():
    return {info[0] for info in socket.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)}


@pytest.fixture
def sim():
    yield from serving(nrf_sim.NrfSim(heartbeat_s=1))


def by_name(sim, family):
    return {**FAST, "nrf.uri": f"http://localhost:{sim.port}",
            "sbi_client.preferred_family": family}


def registrations(sim):
    return [r for r in sim.of("PUT") if r[2].startswith(PREFIX)]


@pytest.mark.parametrize("family", ["ipv4", "ipv4_ipv6", "ipv6_ipv4", "any"])
def test_families_that_reach_an_ipv4_nrf_by_name(sim, bsfd_factory, family):
    if socket.AF_INET not in localhost_families():
        pytest.skip("localhost has no IPv4 address here")
    if family == "any" and socket.AF_INET6 in localhost_families():
        pytest.skip("localhost also has IPv6: the resolver's first may be either")
    bsfd_factory(by_name(sim, family))
    wait_until(lambda: registrations(sim), timeout=10, what=f"an NFRegister with {family}")


def test_strict_ipv6_never_connects_to_an_ipv4_only_name(sim, bsfd_factory):
    if socket.AF_INET6 in localhost_families():
        pytest.skip("localhost resolves to IPv6 here too")
    bsfd = bsfd_factory(by_name(sim, "ipv6"))
    status = wait_until(lambda: (s := bsfd.ops.get("/oc-bsf-configuration/v1/nrfStatus")
                                 .json())["lastError"] and s, what="an NRF error")
    assert "preferred family" in status["lastError"], status
    time.sleep(1.0)  # several retry rounds
    assert not registrations(sim) and not sim.of("PATCH"), "connected over IPv4"
    assert status["state"] == "REGISTERING", status
    assert bsfd.ops.get("/health/ready").status_code == 200  # serves without an NRF


def test_unknown_family_stops_bsfd(tmp_path):
    import subprocess
    from conftest import BSFD
    done = subprocess.run([str(BSFD), "--set", f"store.path={tmp_path}", "--set",
                           "sbi_client.preferred_family=IPv4", "--set", "ops.listen=",
                           "--set", "ops.admin_listen="],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "sbi_client.preferred_family" in done.stderr, done.stderr
