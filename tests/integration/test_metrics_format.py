"""/metrics as Prometheus's own linter reads it (issue 15 §4): `promtool check metrics` (the
Debian `prometheus` package) on the text of a bsfd with each family of metrics present — the
SBI and the store (with admission, overload, NF scoring and the audit on), the Rx gateway, the
NRF client, the message feed and Kafka replication —
plus the conventions promtool does not check: every metric has HELP and TYPE, no `_ms` unit,
counters end in `_total`, the breakdowns of the active bindings sum to the total, the build
and process metrics, and the seed's names of §3.2."""

import re
import shutil
import subprocess
import sys
import pathlib

import pytest

from conftest import BSFD, kafka_broker, site_factory  # noqa: F401
from rx_support import rx_lab  # noqa: F401
from support import Ue, binding, discover, register, wait_until

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
import nrf_sim  # noqa: E402

PROMTOOL = shutil.which("promtool")
TYPE_LINE = re.compile(r"# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$")
SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


def promtool_check(text):
    """Runs `promtool check metrics` on the text: fails the test with what it says."""
    if PROMTOOL is None:
        pytest.fail("promtool is missing: apt-get install prometheus (scripts/install-deps.sh)")
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), \
        f"promtool check metrics -> {done.returncode}\n{done.stdout}{done.stderr}"


def families(text):
    """{name: type} of the TYPE lines; asserts HELP precedes every TYPE and every sample
    belongs to a typed family."""
    types, helps = {}, set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helps.add(line.split(" ")[2])
        elif line.startswith("# TYPE "):
            match = TYPE_LINE.fullmatch(line)
            assert match, line
            assert match.group(1) in helps, f"no HELP before {line}"
            assert match.group(1) not in types, f"two TYPE lines for {match.group(1)}"
            types[match.group(1)] = match.group(2)
        elif line:
            match = SAMPLE.fullmatch(line)
            assert match, f"not a sample: {line!r}"
            name = match.group(1)
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            assert name in types or (base in types and types[base] == "histogram"), \
                f"sample without TYPE: {line}"
    return types


def check_conventions(text):
    types = families(text)
    for name, kind in types.items():
        assert not re.search(r"_(ms|milliseconds)($|_)", name), f"{name}: seconds are the unit"
        if kind == "counter":
            assert name.endswith("_total"), f"counter {name} without _total"
        else:
            assert not name.endswith("_total"), f"{kind} {name} ends in _total"
        assert not name.endswith("_count"), f"{name}: _count belongs to histograms"
    return types


def scrape(server):
    resp = server.ops.get("/metrics")
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/plain; version=0.0.4")
    return resp.text


def samples(text, name):
    """{labels text: value} of one metric's samples."""
    out = {}
    for line in text.splitlines():
        match = SAMPLE.fullmatch(line)
        if match and match.group(1) == name:
            out[match.group(2) or ""] = float(match.group(3))
    return out


def test_sbi_and_store_metrics_pass_promtool(bsfd_factory):
    # with the modules that add their own metrics: admission, overload, NF scoring, audit
    server = bsfd_factory({"admission.enabled": "true", "overload.enabled": "true",
                           "nf_scoring.enabled": "true", "audit.enabled": "true"})
    ues = [Ue() for _ in range(3)]
    for i, ue in enumerate(ues):
        register(server.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi,
                                        dnn="internet" if i else "ims"))
    assert discover(server.client, ipv4Addr=ues[0].ipv4).status_code == 200
    assert server.client.post("/pcfBindings", content=b"{",
                              headers={"content-type": "application/json"}).status_code == 400
    text = scrape(server)
    promtool_check(text)
    types = check_conventions(text)
    # the active bindings: a total, and breakdowns that each sum to it
    assert types["bsf_active_bindings"] == "gauge"
    assert samples(text, "bsf_active_bindings") == {"": 3.0}
    for dim in ("dnn", "snssai", "pcf"):
        by = samples(text, f"bsf_active_bindings_by_{dim}")
        assert sum(by.values()) == 3.0, (dim, by)
    assert samples(text, "bsf_active_bindings_by_dnn") == {'{dnn="ims"}': 1.0,
                                                           '{dnn="internet"}': 2.0}
    assert "oc_db_active_session_count" not in types  # a gauge may not end in _count
    # seed 3.2: store calls as data_repository_invocations_seconds, at least one per write
    assert types["data_repository_invocations_seconds"] == "histogram"
    assert samples(text, "data_repository_invocations_seconds_count")[""] >= 3
    # build and process
    version = subprocess.run([str(BSFD), "--version"], capture_output=True, text=True,
                             timeout=10).stdout.split()[1]
    assert samples(text, "bsf_build_info") == {f'{{version="{version}"}}': 1.0}
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                 "process_open_fds", "process_max_fds", "process_start_time_seconds"):
        assert name in types, name
    assert samples(text, "process_resident_memory_bytes")[""] > 1 << 20
    for name in ("system_operational_state", "ocbsf_admission_state", "bsf_nf_score",
                 "bsf_audit_cycles_total"):
        assert name in types, name
    assert 5 < samples(text, "process_open_fds")[""] < samples(text, "process_max_fds")[""]


def test_rx_gateway_metrics_pass_promtool(rx_lab):
    lab = rx_lab(settings={"diameter.congestion.enabled": "true",
                           "diameter.accept": "*", "diameter.repaving.enabled": "true"})
    ue = lab.registered_ue()
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    text = scrape(lab.bsfd)
    promtool_check(text)
    types = check_conventions(text)
    # seed 3.2: the pending-requests gauge and the processing-time histogram, new names only
    assert types["ocbsf_diam_pending_requests"] == "gauge"
    assert types["ocbsf_diam_service_overall_processing_time_seconds"] == "histogram"
    assert samples(text, "ocbsf_diam_service_overall_processing_time_seconds_count")[
        '{msg_type="AAR-I"}'] == 1.0
    for gone in ("ocbsf_diam_pending_requests_total", "ocbsf_diam_response_latency_seconds",
                 "ocbsf_diam_latency_seconds", "diam_failed_conn_network"):
        assert gone not in types, gone
    assert types["diam_failed_conn_network_total"] == "counter"
    assert types["ocbsf_diam_congestion_state"] == "gauge"
    assert types["diam_repaving_disconnections_total"] == "counter"


def test_nrf_client_metrics_pass_promtool(bsfd_factory):
    sim = nrf_sim.NrfSim(heartbeat_s=1).start()
    try:
        server = bsfd_factory({"nrf.uri": sim.uri, "nrf.retry_min_ms": "100"})
        wait_until(lambda: samples(scrape(server), "bsf_nrf_registered").get("") == 1.0,
                   what="the NF registered")
        text = scrape(server)
        promtool_check(text)
        check_conventions(text)
    finally:
        sim.close()


def test_feed_and_replication_metrics_pass_promtool(site_factory, kafka_broker):
    (site,) = site_factory.start(1, {"feed.enabled": "true",
                                     "feed.brokers": kafka_broker.bootstrap,
                                     "feed.topic": f"{site_factory.prefix}.feed"})
    ue = Ue()
    register(site.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    wait_until(lambda: samples(scrape(site), "bsf_replication_shipper_backlog_events")
               .get("") == 0.0, what="the event shipped")
    text = scrape(site)
    promtool_check(text)
    types = check_conventions(text)
    assert types["bsf_replication_apply_delay_seconds"] == "histogram"
    assert types["bsf_replication_kafka_transaction_seconds"] == "histogram"
    assert types["bsf_replication_lag_seconds"] == "gauge"
    assert samples(text, "bsf_replication_kafka_transaction_seconds_count")[""] >= 1
    assert "bsf_feed_offered_total" in types
