"""Graceful termination (issue 15 §1, seed §3.40). On SIGTERM every new request is refused
at once (503, cause naming the stop), what was already read is committed and answered, the
Diameter peers get DPR, the NRF NFDeregister, and bsfd exits within shutdown.grace_period.

The hammer test is the bug of the issue: a registration in flight at SIGTERM was sometimes
answered 503 "the write queue is full" and lost. Every 201 must be in the store after a
restart, every refusal must say that the BSF is stopping, and a request that got no answer
at all must not have been committed."""

import pathlib
import signal
import sys
import threading
import time

import httpx
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))

import nrf_sim  # noqa: E402
from conftest import Bsfd, assert_no_sanitizer_report  # noqa: E402
from diameter_wire import DISCONNECT_CAUSE, WirePeer  # noqa: E402
from rx_support import REALM, peer_up, rx_lab  # noqa: E402,F401
from support import Ue, binding, discover, wait_until  # noqa: E402

WRITERS = 6


def hammer(server, stop, outcomes):
    """One writer: registrations of new UEs on its own connection until the server is gone."""
    client = httpx.Client(http1=False, http2=True, base_url=server.base_url, timeout=10)
    try:
        while not stop.is_set():
            ue = Ue()
            try:
                resp = client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4, supi=ue.supi))
            except httpx.TransportError as error:
                outcomes.append((ue, None, repr(error)))
                return  # the connection is gone: no later request of this writer was read
            body = resp.json() if resp.content else None
            outcomes.append((ue, resp.status_code, body))
    finally:
        client.close()


def sigterm_under_load(server, load_s):
    """Writers run, SIGTERM after load_s, wait for the exit; returns the outcomes."""
    stop, outcomes = threading.Event(), []
    threads = [threading.Thread(target=hammer, args=(server, stop, outcomes))
               for _ in range(WRITERS)]
    for t in threads:
        t.start()
    wait_until(lambda: sum(1 for o in outcomes if o[1] == 201) >= 20, what="some registrations")
    time.sleep(load_s)
    process = server._detach()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=40)
    stop.set()
    for t in threads:
        t.join(timeout=20)
    assert_no_sanitizer_report(server.stderr_text(), "bsfd")
    assert code == 0, server.stderr_text()[-3000:]
    return outcomes


@pytest.mark.parametrize("run", range(3))
def test_registrations_in_flight_at_sigterm_are_committed_or_refused_as_stopping(
        bsfd_factory, run):
    server = bsfd_factory()
    outcomes = sigterm_under_load(server, 0.3 + 0.2 * run)
    server.start()
    created = [o for o in outcomes if o[1] == 201]
    refusals = [o for o in outcomes if o[1] not in (201, None)]
    unanswered = [o for o in outcomes if o[1] is None]
    assert len(created) >= 20
    assert refusals, "no request was refused as stopping during the stop"
    for ue, _, body in created:
        resp = discover(server.client, ipv4Addr=ue.ipv4)
        assert resp.status_code == 200, f"an acknowledged registration is lost: {body}"
        assert resp.json()["supi"] == ue.supi
    for ue, status, body in refusals:
        assert status == 503, (status, body)
        assert body["cause"] == "NF_SERVICE_FAILOVER" and "stopping" in body["detail"], body
        assert "queue" not in body["detail"], body
        assert discover(server.client, ipv4Addr=ue.ipv4).status_code == 204
    for ue, _, error in unanswered:  # never read, or read and answered: never committed silently
        assert discover(server.client, ipv4Addr=ue.ipv4).status_code == 204, error


def test_new_requests_during_the_stop_get_503_stopping(tmp_path):
    """A slow NRF holds the stop in NFDeregister: meanwhile the SBI still answers, with 503."""
    sim = nrf_sim.NrfSim(heartbeat_s=60).start()
    try:
        server = Bsfd(tmp_path, {"nrf.uri": sim.uri, "nrf.deregister_timeout_ms": "3000"})
        server.start()
        wait_until(lambda: sim.of("PUT"), what="NFRegister")
        client = server.new_client()
        ue = Ue()
        assert client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4)).status_code == 201
        sim.delay_ms = 2000
        process = server._detach()
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        for resp in (client.post("/pcfBindings", json=binding(ipv4Addr=Ue().ipv4)),
                     client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4})):
            assert resp.status_code == 503, resp.text
            assert resp.headers["content-type"] == "application/problem+json"
            assert "stopping" in resp.json()["detail"] and resp.headers.get("retry-after")
        assert process.wait(timeout=30) == 0
        assert time.monotonic() - started >= 1.5  # it did wait for the NRF
        assert sim.of("DELETE"), "no NFDeregister"
        client.close()
    finally:
        sim.close()


def test_the_grace_period_bounds_the_stop(tmp_path):
    """The NRF does not answer NFDeregister for 20 s; shutdown.grace_period is 2 s."""
    sim = nrf_sim.NrfSim(heartbeat_s=60).start()
    try:
        server = Bsfd(tmp_path, {"nrf.uri": sim.uri, "nrf.deregister_timeout_ms": "30000",
                                 "shutdown.grace_period": "2s"})
        server.start()
        wait_until(lambda: sim.of("PUT"), what="NFRegister")
        sim.delay_ms = 20000
        process = server._detach()
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=15)
        took = time.monotonic() - started
        assert code == 1, server.stderr_text()[-2000:]
        assert 1.8 <= took <= 4.0, took
        assert "shutdown.grace_period (2000 ms) elapsed" in server.stderr_text()
    finally:
        sim.close()


def test_sigterm_sends_dpr_to_every_diameter_peer(rx_lab):
    lab = rx_lab(settings={"diameter.accept": "*"})
    peer = WirePeer(lab.diameter_port, f"wire1.{REALM}", REALM)
    wait_until(lambda: peer_up(lab.bsfd, peer.identity), what="the wire peer connected")
    process = lab.bsfd._detach()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    wait_until(lambda: peer.dprs(), what="a DPR")
    (dpr,) = peer.dprs()
    assert dpr.u32(DISCONNECT_CAUSE) == 0  # REBOOTING
    wait_until(lambda: peer.closed_at is not None, what="the connection closed")
    assert_no_sanitizer_report(lab.bsfd.stderr_text(), "bsfd")
    peer.close()

