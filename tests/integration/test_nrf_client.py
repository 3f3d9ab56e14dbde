"""The NRF client against a test NRF (tests/peers/nrf_sim.py, strict to TS 29.510):
registration with a complete, valid NFProfile, heartbeats at the granted interval,
re-registration after 404, an NRF down at start, failover to the alternate NRF and back,
Retry-After, a slow NRF, NFDeregister on SIGTERM, the instance id kept across restarts."""

import json
import time

import pytest

from conftest import free_ports
from support import metrics, wait_until

PREFIX = "/nnrf-nfm/v1/nf-instances/"
FAST = {"nrf.retry_min_ms": "100", "nrf.retry_max_ms": "500", "nrf.timeout_ms": "1000",
        "nrf.unhealthy_s": "2"}
PROFILE = {
    "nf.fqdn": "bsf1.example.org",
    "nf.plmn": "001-01;002-002",
    "nf.snssai": "1-000001;2",
    "nf.set_id": "set1.bsfset.5gc.mnc001.mcc001",
    "nf.priority": "5",
    "nf.capacity": "200",
    "nf.allowed_nf_types": "PCF;AF;NEF",
    "nf.bsf_info.ipv4_ranges": "10.0.0.0-10.0.255.255;192.168.1.0-192.168.1.255",
    "nf.bsf_info.ipv6_prefix_ranges": "2001:db8::/48-2001:db8:ff::/48",
    "nf.bsf_info.dnn_list": "internet;ims",
    "nf.bsf_info.ip_domain_list": "dom1",
    "nf.bsf_info.group_id": "bsfgroup1",
}


def settings(*sims, **more):
    out = dict(FAST)
    out["nrf.uri"] = ";".join(s.uri for s in sims)
    out.update(more)
    return out


def puts(sim):
    return [r for r in sim.of("PUT") if r[2].startswith(PREFIX)]


def status(bsfd):
    answer = bsfd.ops.get("/oc-bsf-configuration/v1/nrfStatus")
    assert answer.status_code == 200
    return answer.json()


def nf_id_of(sim):
    return wait_until(lambda: puts(sim), what="an NFRegister")[0][2][len(PREFIX):]


def test_register_complete_valid_profile(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory({**settings(sim), **PROFILE})
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered")
    _, _, _, headers, body = puts(sim)[0]
    profile = json.loads(body)
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"] == f"BSF-{nf_id} bsf1.example.org"
    assert headers["3gpp-sbi-message-priority"] == "1"  # seed 3.1: NRF messages
    assert profile["nfInstanceId"] == nf_id and profile["nfType"] == "BSF"
    assert profile["nfStatus"] == "REGISTERED"
    assert profile["fqdn"] == "bsf1.example.org"
    assert profile["ipv4Addresses"] == ["127.0.0.1"]
    assert profile["plmnList"] == [{"mcc": "001", "mnc": "01"}, {"mcc": "002", "mnc": "002"}]
    assert profile["sNssais"] == [{"sst": 1, "sd": "000001"}, {"sst": 2}]
    assert profile["nfSetIdList"] == ["set1.bsfset.5gc.mnc001.mcc001"]
    assert (profile["priority"], profile["capacity"], profile["load"]) == (5, 200, 0)
    assert profile["allowedNfTypes"] == ["PCF", "AF", "NEF"]
    svc = profile["nfServices"][0]
    assert profile["nfServiceList"][svc["serviceInstanceId"]] == svc
    assert svc["serviceName"] == "nbsf-management"
    assert svc["versions"] == [{"apiVersionInUri": "v1", "apiFullVersion": "1.5.0"}]
    assert svc["scheme"] == "http" and svc["nfServiceStatus"] == "REGISTERED"
    assert svc["ipEndPoints"] == [{"ipv4Address": "127.0.0.1", "transport": "TCP",
                                   "port": bsfd.sbi_port}]
    info = profile["bsfInfo"]
    assert info["ipv4AddressRanges"] == [{"start": "10.0.0.0", "end": "10.0.255.255"},
                                         {"start": "192.168.1.0", "end": "192.168.1.255"}]
    assert info["ipv6PrefixRanges"] == [{"start": "2001:db8::/48", "end": "2001:db8:ff::/48"}]
    assert info["dnnList"] == ["internet", "ims"] and info["ipDomainList"] == ["dom1"]
    assert info["groupId"] == "bsfgroup1"
    assert "rxDiamHost" not in info  # the Rx gateway is off
    st = wait_until(lambda: (s := status(bsfd))["state"] == "REGISTERED" and s)
    assert st["state"] == "REGISTERED" and st["nrfInUse"] == sim.uri
    assert st["nfInstanceId"] == nf_id and st["heartBeatTimer"] == 1
    metrics = bsfd.ops.get("/metrics").text
    assert "bsf_nrf_registered 1" in metrics


def test_heartbeats_at_granted_interval(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd_factory(settings(sim, **{"nrf.heartbeat_s": "30"}))  # proposes 30, granted 1
    nf_id = nf_id_of(sim)
    wait_until(lambda: len(sim.of("PATCH")) >= 3, timeout=10, what="3 heartbeats")
    patches = sim.of("PATCH")
    times = [puts(sim)[0][0]] + [p[0] for p in patches[:3]]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert all(0.8 <= g <= 1.7 for g in gaps), gaps
    for _, _, path, headers, body in patches:
        assert path == PREFIX + nf_id
        assert headers["content-type"] == "application/json-patch+json"
        assert headers["3gpp-sbi-message-priority"] == "3"  # seed 3.1: AutonomousNfPatch
        assert json.loads(body) == [{"op": "replace", "path": "/nfStatus", "value": "REGISTERED"},
                                    {"op": "replace", "path": "/load", "value": 0}]
    assert sim.registered(nf_id)


def test_reregister_after_404(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory(settings(sim))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.of("PATCH"), what="a heartbeat")
    sim.expire_now(nf_id)  # the NRF forgot us: the next heartbeat gets 404
    wait_until(lambda: len(puts(sim)) >= 2, timeout=10, what="a new NFRegister")
    wait_until(lambda: sim.registered(nf_id), what="registered again")
    st = wait_until(lambda: (s := status(bsfd))["state"] == "REGISTERED" and s)
    assert st["reregistrationsAfter404"] >= 1
    assert st["registrations"] >= 2


def test_expired_when_heartbeats_stop(nrf_factory, bsfd_factory):
    """The test NRF itself: an instance that stops heartbeating expires."""
    sim = nrf_factory(heartbeat_s=1, grace_s=0.5).start()
    bsfd = bsfd_factory(settings(sim))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered")
    bsfd.kill9()  # no deregistration, no heartbeats
    wait_until(lambda: not sim.registered(nf_id), timeout=5, what="expiry")


def test_nrf_down_at_start_then_up(nrf_factory, bsfd_factory):
    (port,) = free_ports(1)
    sim = nrf_factory(heartbeat_s=1, port=port)  # not started yet
    bsfd = bsfd_factory(settings(sim))
    # bsfd serves while no NRF answers
    assert bsfd.ops.get("/health/ready").status_code == 200
    wait_until(lambda: status(bsfd)["lastError"], what="an error")
    assert status(bsfd)["state"] == "REGISTERING"
    sim.start()
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), timeout=10, what="registered once up")
    wait_until(lambda: status(bsfd)["state"] == "REGISTERED", what="status REGISTERED")


def test_failover_to_secondary_and_back(nrf_factory, bsfd_factory):
    primary = nrf_factory(heartbeat_s=1).start()
    secondary = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory(settings(primary, secondary))
    nf_id = nf_id_of(primary)
    wait_until(lambda: status(bsfd)["nrfInUse"] == primary.uri, what="on the primary")
    assert not puts(secondary)
    primary.stop()
    wait_until(lambda: secondary.registered(nf_id), timeout=10, what="on the secondary")
    st = wait_until(lambda: (s := status(bsfd))["nrfInUse"] == secondary.uri and s)
    assert st["nrfs"][0]["health"] == "UNHEALTHY"
    wait_until(lambda: secondary.of("PATCH"), what="heartbeats to the secondary")
    primary.start()
    # once the primary's unhealthy time (2 s) is over, bsfd registers there again
    wait_until(lambda: primary.registered(nf_id), timeout=15, what="back on the primary")
    wait_until(lambda: status(bsfd)["nrfInUse"] == primary.uri, what="status on the primary")
    wait_until(lambda: secondary.of("DELETE"), what="leaves the secondary")
    assert not secondary.registered(nf_id)


def test_retry_after_marks_primary_unhealthy(nrf_factory, bsfd_factory):
    primary = nrf_factory(heartbeat_s=1).start()
    secondary = nrf_factory(heartbeat_s=1).start()
    primary.fail_with(503, retry_after=30)
    bsfd = bsfd_factory(settings(primary, secondary, **{"nrf.primary_retries": "2"}))
    nf_id = nf_id_of(secondary)
    wait_until(lambda: secondary.registered(nf_id), what="on the secondary")
    time.sleep(1.5)  # a heartbeat later: the primary is still avoided
    assert len(primary.of("PUT")) == 1  # Retry-After: no retry on it
    st = status(bsfd)
    assert st["nrfInUse"] == secondary.uri
    assert st["nrfs"][0]["health"] == "UNHEALTHY"


def test_primary_retries_then_alternate(nrf_factory, bsfd_factory):
    primary = nrf_factory(heartbeat_s=1).start()
    secondary = nrf_factory(heartbeat_s=1).start()
    primary.fail_with(503)
    bsfd_factory(settings(primary, secondary, **{"nrf.primary_retries": "2"}))
    nf_id = nf_id_of(secondary)
    wait_until(lambda: secondary.registered(nf_id), what="on the secondary")
    assert len(primary.of("PUT")) == 3  # 1 + primary_retries


def test_slow_nrf(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    sim.delay_ms = 1500
    bsfd = bsfd_factory(settings(sim, **{"nrf.timeout_ms": "400", "nrf.primary_retries": "0"}))
    wait_until(lambda: "no answer in time" in (status(bsfd)["lastError"] or ""),
               what="a timeout")
    assert status(bsfd)["state"] == "REGISTERING"
    sim.delay_ms = 0
    wait_until(lambda: status(bsfd)["state"] == "REGISTERED", timeout=15, what="registered")


def test_deregister_on_sigterm(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory(settings(sim))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered")
    t0 = time.monotonic()
    bsfd.stop()
    assert time.monotonic() - t0 < 10
    deletes = sim.of("DELETE")
    assert len(deletes) == 1 and deletes[0][2] == PREFIX + nf_id
    assert not sim.registered(nf_id)


def test_sigterm_with_nrf_unreachable_is_bounded(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory(settings(sim, **{"nrf.deregister_timeout_ms": "500"}))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered")
    sim.delay_ms = 5000
    t0 = time.monotonic()
    bsfd.stop()
    assert time.monotonic() - t0 < 4


def test_instance_id_survives_restart(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    bsfd = bsfd_factory(settings(sim))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered")
    bsfd.restart()
    wait_until(lambda: len(puts(sim)) >= 2, what="registered after the restart")
    assert puts(sim)[1][2] == PREFIX + nf_id
    assert status(bsfd)["nfInstanceId"] == nf_id


def test_configured_instance_id(nrf_factory, bsfd_factory):
    sim = nrf_factory(heartbeat_s=1).start()
    fixed = "54804518-4191-46b3-955c-ac631f953ed8"
    bsfd_factory(settings(sim, **{"nf.instance_id": fixed}))
    assert nf_id_of(sim) == fixed


@pytest.mark.parametrize("key,value", [("nf.instance_id", "not-a-uuid"),
                                       ("nf.plmn", "1-01"), ("nf.snssai", "1-00000g"),
                                       ("nf.bsf_info.ipv4_ranges", "10.0.0.9-10.0.0.1"),
                                       ("nrf.uri", "ftp://nrf"),
                                       ("scp.uris", "scp1:80")])
def test_bad_settings_refused(bsfd_factory, key, value):
    import subprocess
    from conftest import BSFD
    done = subprocess.run([str(BSFD), "--set", f"{key}={value}", "--set", "store.path=/nonexistent"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert key in done.stderr


@pytest.mark.parametrize("publish", [True, False])
def test_rx_identity_in_bsf_info(nrf_factory, bsfd_factory, publish):
    sim = nrf_factory(heartbeat_s=1).start()
    (port,) = free_ports(1)
    bsfd_factory(settings(sim, **{"diameter.enabled": "true",
                                  "diameter.identity": "bsf.rx.example.org",
                                  "diameter.realm": "rx.example.org",
                                  "diameter.port": str(port),
                                  "nf.bsf_info.rx_identity": str(publish).lower()}))
    nf_id_of(sim)
    info = json.loads(puts(sim)[0][4])["bsfInfo"]
    if publish:
        assert info["rxDiamHost"] == "bsf.rx.example.org"
        assert info["rxDiamRealm"] == "rx.example.org"
    else:
        assert "rxDiamHost" not in info and "rxDiamRealm" not in info


def make_cert(directory):
    import subprocess
    key, cert = directory / "nrf.key", directory / "nrf.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_nrf_over_tls(nrf_factory, bsfd_factory, tmp_path):
    cert, key = make_cert(tmp_path)
    sim = nrf_factory(heartbeat_s=1, cert=str(cert), key=str(key)).start()
    assert sim.uri.startswith("https://")
    bsfd = bsfd_factory(settings(sim, **{"sbi_client.tls_ca_file": str(cert)}))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.registered(nf_id), what="registered over TLS")
    wait_until(lambda: sim.of("PATCH"), what="a heartbeat over TLS")
    assert status(bsfd)["state"] == "REGISTERED"


def test_nrf_with_an_untrusted_certificate_is_not_used(nrf_factory, bsfd_factory, tmp_path):
    cert, key = make_cert(tmp_path)
    sim = nrf_factory(heartbeat_s=1, cert=str(cert), key=str(key)).start()
    bsfd = bsfd_factory(settings(sim))  # the system's trust store does not know it
    wait_until(lambda: "certificate" in (status(bsfd)["lastError"] or ""),
               what="a certificate error")
    assert status(bsfd)["state"] == "REGISTERING"
    assert not sim.requests


def test_profile_without_an_address_refused():
    import subprocess
    from conftest import BSFD
    done = subprocess.run([str(BSFD), "--set", "nrf.uri=http://127.0.0.1:1", "--set",
                           "sbi.listen=0.0.0.0:8080", "--set", "store.path=/nonexistent"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "nf.fqdn" in done.stderr


OUT = ('ocbsf_http_message_priority_request_count_total{{direction="out",rcvd_priority="{}",'
       'eval_priority="{}",interface_type="Nnrf",msg_type="{}"}}')
IN = ('ocbsf_http_message_priority_response_count_total{{direction="in",rcvd_priority="{0}",'
      'eval_priority="{0}",interface_type="Nnrf",msg_type="{1}",response_code="{2}"}}')


def test_message_priority_series_of_the_nrf_requests(nrf_factory, bsfd_factory):
    """Seed 3.1's metrics of the BSF as consumer: each request to the NRF counted direction
    out (rcvd_priority NA: the client has none before the profile; eval_priority the one it
    sends), each answer direction in with the NRF's own 3gpp-Sbi-Message-Priority."""
    sim = nrf_factory(heartbeat_s=1).start()
    sim.answer_priority = "4"
    sim.message_priorities.update(NfRegister="5")
    profile = ("messageID=reg,rulePriority=1,interfaceType=Nnrf,messageType=NfRegister,"
               "requestPriorityOverride=Always,requestPriorityValue=5;")  # ';': one rule
    bsfd = bsfd_factory(settings(sim, **{"admission.message_priority_profile": profile}))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.of("PATCH"), what="a heartbeat")

    def heartbeat_answered():
        m = metrics(bsfd)
        return m if m.get(IN.format(4, "AutonomousNfPatch", 204)) else None
    m = wait_until(heartbeat_answered, what="a heartbeat's answer counted")
    assert m[OUT.format("NA", 5, "NfRegister")] == len(puts(sim)) == 1
    assert m[IN.format(4, "NfRegister", 201)] == 1
    assert m[OUT.format("NA", 3, "AutonomousNfPatch")] >= m[IN.format(4, "AutonomousNfPatch", 204)]
    assert not [k for k in m if k.startswith("ocbsf_http_message_priority_response_count_total{"
                                             'direction="in"') and 'rcvd_priority="4"' not in k]
    assert sim.registered(nf_id)


def test_message_priorities_from_the_profile(nrf_factory, bsfd_factory):
    """Seed 3.1: the requests to the NRF carry 3gpp-Sbi-Message-Priority from the message
    priority profile's Nnrf rules (the simulator checks every request's value): NFRegister
    Always 5, the heartbeat IfNotPresent 7, the rest Never, so NFDeregister keeps the
    seed's default 2."""
    sim = nrf_factory(heartbeat_s=1).start()
    sim.message_priorities.update(NfRegister="5", AutonomousNfPatch="7")
    profile = ";".join([
        "messageID=reg,rulePriority=1,interfaceType=Nnrf,messageType=NfRegister,"
        "requestPriorityOverride=Always,requestPriorityValue=5",
        "messageID=hb,rulePriority=2,interfaceType=Nnrf,messageType=AutonomousNfPatch,"
        "requestPriorityOverride=IfNotPresent,requestPriorityValue=7",
        "messageID=rest,rulePriority=3,interfaceType=Nnrf,messageType=Any"])
    bsfd = bsfd_factory(settings(sim, **{"admission.message_priority_profile": profile}))
    nf_id = nf_id_of(sim)
    wait_until(lambda: sim.of("PATCH"), what="a heartbeat")
    bsfd.stop()
    sent = {m: {r[3].get("3gpp-sbi-message-priority") for r in sim.of(m)}
            for m in ("PUT", "PATCH", "DELETE")}
    assert sent == {"PUT": {"5"}, "PATCH": {"7"}, "DELETE": {"2"}}, sent
    assert not sim.registered(nf_id)
    assert not sim.violations, sim.violations
