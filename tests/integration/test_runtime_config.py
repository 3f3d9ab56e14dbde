"""Runtime configuration (issue 15 §2): GET/PATCH/PUT of
{admin}/oc-bsf-configuration/v1/configuration (the effective configuration as JSON with the
YAML names and nesting; merge patch; import of a whole exported document), validated as the
file is, applied at once, logged, kept across restarts; keys that need a restart answered
409 with restartRequired and nothing applied; SIGHUP re-reads the file; bsfd --check-config
validates without starting (seed §3.20)."""

import copy
import signal
import subprocess

import pytest

from conftest import BSFD, Bsfd, free_ports
from support import Ue, assert_problem, binding, post_binding, wait_until

PATH = "/oc-bsf-configuration/v1/configuration"
STATE = "/oc-bsf-configuration/v1/operationalState"
MERGE = {"content-type": "application/merge-patch+json"}


def get(server):
    resp = server.admin.get(PATH)
    assert resp.status_code == 200, resp.text
    return resp.json()


def patch(server, doc, status=200):
    resp = server.admin.patch(PATH, json=doc, headers=MERGE)
    assert resp.status_code == status, resp.text
    return resp.json()


@pytest.fixture
def server(bsfd_factory):
    return bsfd_factory({"log.level": "info"})


def test_get_is_the_effective_configuration_with_the_yaml_names(server):
    doc = get(server)
    assert doc["log"]["level"] == "info"
    assert doc["sbi"]["listen"] == f"127.0.0.1:{server.sbi_port}"
    assert doc["site"]["id"] == 1
    assert doc["shutdown"]["grace_period"] == "30s"
    assert doc["controlled_shutdown"] == {"sbi_status": 503, "sbi_cause": "NF_SERVICE_FAILOVER",
                                          "diameter_result_code": 3004}
    assert doc["diameter"]["congestion"]["enabled"] is False  # nested at every '.'
    assert isinstance(doc["diameter"]["congestion"]["cpu_thresholds"], list)
    assert server.ops.get(PATH).status_code == 404  # admin listener only


def test_a_patch_is_applied_at_once_logged_and_kept_across_restarts(server):
    doc = patch(server, {"controlled_shutdown": {"sbi_status": 429, "sbi_cause": "NF_CONGESTION"},
                         "log": {"level": "debug"}})
    assert doc["controlled_shutdown"]["sbi_status"] == 429 and doc["log"]["level"] == "debug"
    assert server.admin.put(STATE, json={"operationalState": "PARTIAL_SHUTDOWN"}).status_code == 200
    assert_problem(post_binding(server.client, binding(ipv4Addr=Ue().ipv4)), 429, "NF_CONGESTION")
    log = server.stderr_text()
    assert 'controlled_shutdown.sbi_status = 429 (was 503): patched' in log
    assert 'log.level = "debug" (was "info"): patched' in log
    server.restart()
    assert get(server)["controlled_shutdown"]["sbi_status"] == 429
    assert get(server)["log"]["level"] == "debug"
    assert "controlled_shutdown.sbi_status = 429 (set through the management API)" in \
        server.stderr_text()
    assert_problem(post_binding(server.client, binding(ipv4Addr=Ue().ipv4)), 429, "NF_CONGESTION")
    # null (RFC 7396) drops the override: the value of the file / command line again
    doc = patch(server, {"controlled_shutdown": {"sbi_status": None, "sbi_cause": None}})
    assert doc["controlled_shutdown"]["sbi_status"] == 503
    server.restart()
    assert get(server)["controlled_shutdown"]["sbi_status"] == 503
    assert get(server)["log"]["level"] == "debug"


def test_the_log_level_applies_at_once(server):
    patch(server, {"log": {"level": "error"}})
    assert server.admin.put(STATE, json={"operationalState": "PARTIAL_SHUTDOWN"}).status_code == 200
    assert "-> PARTIAL_SHUTDOWN" not in server.stderr_text()  # a WARN line: not at error
    patch(server, {"log": {"level": "warn"}})
    assert server.admin.put(STATE, json={"operationalState": "NORMAL"}).status_code == 200
    assert "operational state PARTIAL_SHUTDOWN -> NORMAL" in server.stderr_text()


def test_keys_that_need_a_restart_are_refused_and_nothing_changes(server):
    before = get(server)
    resp = server.admin.patch(PATH, json={"sbi": {"max_body_bytes": 2048},
                                          "log": {"level": "debug"}}, headers=MERGE)
    assert resp.status_code == 409, resp.text
    body = resp.json()
    assert body["status"] == 409 and body["restartRequired"] == ["sbi.max_body_bytes"]
    assert get(server) == before  # not even log.level
    # the same value as now is no change: accepted
    patch(server, {"sbi": {"max_body_bytes": before["sbi"]["max_body_bytes"]}})


@pytest.mark.parametrize("doc, key, why", [
    ({"log": {"level": "loud"}}, "log.level", "not one of"),
    ({"log": {"level": 3}}, "log.level", "a string"),
    ({"controlled_shutdown": {"sbi_status": 600}}, "controlled_shutdown.sbi_status", "400..599"),
    ({"controlled_shutdown": {"sbi_cause": "not a cause"}}, "controlled_shutdown.sbi_cause",
     "cause name"),
    ({"shutdown": {"grace_period": "30"}}, "shutdown.grace_period", "not a duration"),
    ({"no_such": {"key": 1}}, "no_such.key", "unknown configuration key"),
    ({"log": "debug"}, "log", "unknown configuration key"),
])
def test_invalid_values_are_refused_naming_the_key(server, doc, key, why):
    before = get(server)
    body = patch(server, doc, status=400)
    assert key in body["detail"] and why in body["detail"], body
    assert get(server) == before


@pytest.mark.parametrize("raw", [b"", b"[]", b"not json", b'"x"'])
def test_a_body_that_is_not_an_object_is_refused(server, raw):
    resp = server.admin.patch(PATH, content=raw, headers=MERGE)
    assert resp.status_code == 400 and "JSON object" in resp.json()["detail"], resp.text
    assert server.admin.delete(PATH).status_code == 405


def test_export_and_import(server):
    exported = get(server)
    changed = copy.deepcopy(exported)
    changed["log"]["level"] = "warn"
    changed["shutdown"]["grace_period"] = "45s"
    doc = server.admin.put(PATH, json=changed).json()
    assert doc == changed
    assert get(server) == changed
    server.restart()
    assert get(server) == changed  # the imported values are kept
    # importing the first export puts everything back (overrides gone)
    assert server.admin.put(PATH, json=exported).json() == exported
    server.restart()
    assert get(server) == exported
    # an import that changes a restart-only key changes nothing
    other = copy.deepcopy(exported)
    other["store"]["max_batch"] = exported["store"]["max_batch"] + 1
    other["log"]["level"] = "debug"
    resp = server.admin.put(PATH, json=other)
    assert resp.status_code == 409 and resp.json()["restartRequired"] == ["store.max_batch"]
    assert get(server) == exported


# ---- SIGHUP -----------------------------------------------------------------------------------

class FileBsfd(Bsfd):
    """bsfd with -c FILE before the --set of the test's ports and store."""

    def __init__(self, workdir, path, settings=None):
        super().__init__(workdir, settings)
        self.path = path

    def command(self):
        return [str(BSFD), "-c", str(self.path)] + super().command()[1:]


def test_sighup_applies_what_can_change_and_reports_the_rest(tmp_path):
    conf = tmp_path / "bsf.yaml"
    conf.write_text("log:\n  level: info\nshutdown:\n  grace_period: 30s\n"
                    "sbi:\n  max_body_bytes: 65536\n")
    (tmp_path / "run").mkdir()
    server = FileBsfd(tmp_path / "run", conf).start()
    try:
        conf.write_text("log:\n  level: debug\nshutdown:\n  grace_period: 10s\n"
                        "sbi:\n  max_body_bytes: 2048\n")
        server.process.send_signal(signal.SIGHUP)
        wait_until(lambda: "SIGHUP: configuration reloaded" in server.stderr_text(),
                   what="the reload")
        doc = get(server)
        assert doc["log"]["level"] == "debug" and doc["shutdown"]["grace_period"] == "10s"
        assert doc["sbi"]["max_body_bytes"] == 65536  # needs a restart: not applied
        log = server.stderr_text()
        assert "sbi.max_body_bytes = 2048 (was 65536): changed in the file; needs a restart" in log
        assert "(2 applied, 1 need a restart)" in log
        # an override set through the API still wins over the file
        patch(server, {"log": {"level": "warn"}})
        server.process.send_signal(signal.SIGHUP)
        wait_until(lambda: server.stderr_text().count("SIGHUP: configuration reloaded") == 2,
                   what="the second reload")
        assert get(server)["log"]["level"] == "warn"
        # a file that does not validate changes nothing
        conf.write_text("log:\n  level: loud\n")
        server.process.send_signal(signal.SIGHUP)
        wait_until(lambda: "SIGHUP: invalid configuration" in server.stderr_text(),
                   what="the refusal")
        assert "log.level" in server.stderr_text().split("SIGHUP: invalid configuration")[1]
        assert get(server)["shutdown"]["grace_period"] == "10s"
        assert server.running and server.process.poll() is None
    finally:
        server.stop()


# ---- --check-config ---------------------------------------------------------------------------

def check(*args):
    return subprocess.run([str(BSFD), "--check-config", *args], capture_output=True, text=True,
                          timeout=20)


def test_check_config_accepts_a_valid_configuration_without_starting(tmp_path):
    conf = tmp_path / "bsf.yaml"
    port, = free_ports(1)
    conf.write_text(f"sbi:\n  listen: 127.0.0.1:{port}\nstore:\n  path: {tmp_path / 'st'}\n")
    done = check("-c", str(conf), "--set", "log.level=debug")
    assert done.returncode == 0, done.stderr
    assert "configuration valid" in done.stdout
    assert not (tmp_path / "st").exists()  # nothing was started


@pytest.mark.parametrize("args, key", [
    (["--set", "sbi.listen=nowhere"], "sbi.listen"),
    (["--set", "shutdown.grace_period=0s"], "shutdown.grace_period"),
    (["--set", "no.such=1"], "no.such"),
    (["--set", "controlled_shutdown.sbi_cause=bad cause"], "controlled_shutdown.sbi_cause"),
])
def test_check_config_exits_2_naming_the_key(args, key):
    done = check(*args)
    assert done.returncode == 2, done
    assert key in done.stderr, done.stderr


def test_check_config_names_the_key_of_a_bad_file(tmp_path):
    conf = tmp_path / "bsf.yaml"
    conf.write_text("store:\n  max_batch: lots\n")
    done = check("-c", str(conf))
    assert done.returncode == 2 and "store.max_batch" in done.stderr, done.stderr
    done = check("-c", str(tmp_path / "missing.yaml"))
    assert done.returncode == 2 and "missing.yaml" in done.stderr, done.stderr


# ---- NRF timers -------------------------------------------------------------------------------

def test_nrf_timeout_changes_at_run_time(bsfd_factory):
    """A slow NRF (0.8 s): heartbeats succeed under nrf.timeout_ms 3000; PATCHed to 200 ms
    the next ones time out; back to 3000 they succeed again."""
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
    import nrf_sim
    from rx_support import metric
    sim = nrf_sim.NrfSim(heartbeat_s=1).start()
    try:
        server = bsfd_factory({"nrf.uri": sim.uri, "nrf.timeout_ms": "3000",
                               "nrf.primary_retries": "0", "nrf.retry_min_ms": "100",
                               "nrf.unhealthy_s": "1"})
        sim.delay_ms = 800
        wait_until(lambda: metric(server, "bsf_nrf_heartbeats_total", result="ok") >= 1,
                   what="a slow heartbeat that succeeds")
        assert metric(server, "bsf_nrf_heartbeats_total", result="failed") == 0
        doc = patch(server, {"nrf": {"timeout_ms": 200}})
        assert doc["nrf"]["timeout_ms"] == 200
        wait_until(lambda: metric(server, "bsf_nrf_heartbeats_total", result="failed") >= 1,
                   what="a heartbeat that times out")
        patch(server, {"nrf": {"timeout_ms": 3000}})
        sim.delay_ms = 0
        wait_until(lambda: server.ops.get("/oc-bsf-configuration/v1/nrfStatus").json()["state"]
                   == "REGISTERED", what="registered again")
        # the back-off's range is checked as a whole, as in the file
        body = patch(server, {"nrf": {"retry_min_ms": 5000, "retry_max_ms": 1000}}, status=400)
        assert "nrf.retry_min_ms" in body["detail"], body
    finally:
        sim.close()
