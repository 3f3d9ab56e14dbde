"""Seed 3.9 (the error log, its burst filter) and 3.11 (the enhanced ProblemDetails detail with
the application error id) on a real bsfd over HTTP/2 loopback: the answers' bodies and the
lines bsfd writes to its log."""
import json
import re
import time
import uuid

from support import binding, metrics, new_pcf_id, wait_until

INSTANCE = str(uuid.UUID("3a7d4c1e-0541-4c7d-ab84-c6d70b1b0666"))
FQDN = "bsf1.example.org"
ON = {"nf.instance_id": INSTANCE, "nf.fqdn": FQDN, "sbi.error_detail.enhanced": "true",
      "sbi.error_log.enabled": "true", "sbi.error_log.ue_id": "true"}
SUPI, GPSI = "imsi-650081000010610", "msisdn-4412345678"
ENHANCED = re.compile(r"^" + re.escape(FQDN) + r":BSF_MGMT:(.+) :EC-OBSF-BSF_MGMT-"
                      r"([A-Z]+)-(\d{3})-(\d{5})$")


def log_lines(server):
    out = []
    for line in server.stderr_text().splitlines():
        k = line.find("error response {")
        if k >= 0:
            out.append(json.loads(line[k + len("error response "):]))
    return out


def register_without_address(server, **ids):
    """A registration with no UE address: 400 MANDATORY_IE_MISSING."""
    return server.client.post("/pcfBindings", json=binding(pcfId=new_pcf_id(), **ids))


def test_error_logged_with_the_supi_and_the_enhanced_detail(bsfd_factory):
    server = bsfd_factory(ON)
    body = binding(pcfId=new_pcf_id(), supi=SUPI, gpsi=GPSI)
    body.pop("ipv4Addr", None)
    resp = server.client.post("/pcfBindings", json=body)
    assert resp.status_code == 400, resp.text
    problem = resp.json()
    assert problem["cause"] == "MANDATORY_IE_MISSING"
    m = ENHANCED.match(problem["detail"])
    assert m, problem["detail"]
    assert m.group(2, 3, 4) == ("REQVLD", "400", "00003")
    wait_until(lambda: log_lines(server), what="the error log line")
    (line,) = log_lines(server)
    assert line == {"errorStatus": "400", "errorTitle": problem["title"],
                    "errorDetails": problem["detail"], "errorCause": "MANDATORY_IE_MISSING",
                    "sender": f"BSF-{INSTANCE}", "subscriberId": SUPI}
    assert metrics(server)["error_handler_out_total"] == 1
    # a discovery of nobody by GPSI: the query names the subscriber
    resp = server.client.get("/pcfBindings", params={"gpsi": GPSI, "noSuchParameter": "1"})
    assert resp.status_code == 400 and resp.json()["cause"] == "INVALID_QUERY_PARAM"
    wait_until(lambda: len(log_lines(server)) == 2, what="the second line")
    assert log_lines(server)[1]["subscriberId"] == GPSI
    resp = server.client.get("/nowhere")
    assert resp.status_code == 404
    m = ENHANCED.match(resp.json()["detail"])
    assert m and m.group(2, 3) == ("RESOURCE", "404"), resp.json()


def test_only_the_gpsi_then_no_ue_id(bsfd_factory):
    server = bsfd_factory(ON)
    body = binding(pcfId=new_pcf_id(), gpsi=GPSI)
    body.pop("ipv4Addr", None)
    assert server.client.post("/pcfBindings", json=body).status_code == 400
    wait_until(lambda: log_lines(server), what="the error log line")
    assert log_lines(server)[0]["subscriberId"] == GPSI
    server.stop()
    server = bsfd_factory(dict(ON, **{"sbi.error_log.ue_id": "false"}))
    body = binding(pcfId=new_pcf_id(), supi=SUPI)
    body.pop("ipv4Addr", None)
    assert server.client.post("/pcfBindings", json=body).status_code == 400
    wait_until(lambda: log_lines(server), what="the error log line")
    assert "subscriberId" not in log_lines(server)[0]


def test_off_by_default(bsfd_factory):
    server = bsfd_factory({"nf.instance_id": INSTANCE, "nf.fqdn": FQDN})
    body = binding(pcfId=new_pcf_id(), supi=SUPI)
    body.pop("ipv4Addr", None)
    resp = server.client.post("/pcfBindings", json=body)
    assert resp.status_code == 400
    assert not ENHANCED.match(resp.json()["detail"]) and FQDN not in resp.json()["detail"]
    assert server.client.get("/pcfBindings", params={"ipv4Addr": "10.1.1.1"}).status_code == 204
    m = metrics(server)
    assert m["error_handler_out_total"] == 0
    assert m['ocbsf_sbi_error_log_total{result="logged"}'] == 0
    assert log_lines(server) == []


def test_burst_filter(bsfd_factory):
    """rate 5/s, burst 20: of 60 errors sent at once, 20 (plus what the rate refilled while
    they were sent) are logged, the rest dropped and counted."""
    server = bsfd_factory(dict(ON, **{"sbi.error_log.rate": 5, "sbi.error_log.max_burst": 20}))
    start = time.monotonic()
    for _ in range(60):
        assert server.client.get("/nowhere").status_code == 404
    elapsed = time.monotonic() - start
    m = metrics(server)
    logged = m['ocbsf_sbi_error_log_total{result="logged"}']
    dropped = m['ocbsf_sbi_error_log_total{result="dropped"}']
    assert logged + dropped == 60
    assert 20 <= logged <= 20 + 5 * elapsed + 1, (logged, elapsed)
    wait_until(lambda: len(log_lines(server)) == logged, what="the logged lines")
