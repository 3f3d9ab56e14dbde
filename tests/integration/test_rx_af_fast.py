"""af_fast, the benchmark's fake AF (tests/diameter_peers/af_fast.c, no freeDiameter): its load
goes through the gateway to a real freeDiameter PCF like af_peer's (AAR-I, AAR-U, STR, all
answered 2001, counted by bsfd), and it leaves with DPR."""

import json
import subprocess

from rx_support import PEERS_DIR, REALM, metric, peer_up, rx_lab  # noqa: F401 (fixture)
from support import Ue, wait_until

FAST_ID = "af-fast.test.local"


def test_af_fast_load_is_proxied_and_reported(rx_lab):
    lab = rx_lab(settings={"diameter.accept": f"af.test.local;{FAST_ID}"})
    ues = [Ue() for _ in range(20)]
    assert all(int(b.ipv4.split(".")[-1]) == (int(a.ipv4.split(".")[-1]) + 1) % 256
               for a, b in zip(ues, ues[1:])), "consecutive addresses"
    for ue in ues:
        lab.register(ue)
    out = subprocess.run([str(PEERS_DIR / "af_fast"), "--identity", FAST_ID, "--realm", REALM,
                          "--connect", f"127.0.0.1:{lab.diameter_port}", "--dest-realm", REALM,
                          "--n", "60", "--window", "8", "--ip", ues[0].ipv4, "--count", "20",
                          "--mix"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["sessions"] == 60 and report["requests"] == 180, report
    assert report["answers"] == 180 and report["timeouts"] == 0, report
    assert report["result_codes"] == {"2001": 180}, report
    assert 0 < report["latency_ms"]["p50"] <= report["latency_ms"]["p99"], report
    assert report["cpu"]["us_per_answer"] > 0, report
    for kind in ("AAR-I", "AAR-U", "STR"):
        assert metric(lab.bsfd, "ocbsf_diam_request_inbound_total", msg_type=kind) == 60, kind
    pcf = lab.pcf()
    wait_until(lambda: len(pcf.events(type="recv")) >= 180, what="the PCF to record 180 requests")
    # it left with DPR/DPA: bsfd no longer counts it as connected, and no session is pending
    wait_until(lambda: not peer_up(lab.bsfd, FAST_ID), what="af_fast to be gone")
    assert lab.pending() == 0


def test_af_fast_without_bindings_counts_the_bsfs_answers(rx_lab):
    lab = rx_lab(settings={"diameter.accept": f"af.test.local;{FAST_ID}"})
    out = subprocess.run([str(PEERS_DIR / "af_fast"), "--identity", FAST_ID, "--realm", REALM,
                          "--connect", f"127.0.0.1:{lab.diameter_port}", "--dest-realm", REALM,
                          "--n", "10", "--ip", "192.0.2.1", "--mix"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    # no binding: every AAR-I gets 5065 (Experimental-Result), and no chain goes on
    assert report["result_codes"] == {"5065": 10} and report["requests"] == 10, report
