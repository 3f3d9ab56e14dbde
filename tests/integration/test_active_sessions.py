"""The ops port: GET /oc-bsf-configuration/v1/activeSessionCount/pcfBindings and the
bsf_active_bindings gauge (the seed's oc_db_active_session_count) of /metrics. Each test has
its own server, so the counts are exact."""

import re

import openapi
from support import (Ue, assert_binding, assert_no_content, binding, delete, new_pcf_id, patch,
                     post_binding, register)

GAUGE = "bsf_active_bindings"  # seed 3.38 oc_db_active_session_count (docs/operations.md)


def metric(server, name):
    """The value of the unlabelled sample `name` on /metrics (also checks it is a gauge)."""
    resp = server.ops.get("/metrics")
    assert resp.status_code == 200, resp.text
    text = resp.text
    assert re.search(rf"^# TYPE {name} gauge$", text, re.M), f"no gauge {name}:\n{text}"
    samples = re.findall(rf"^{name}(?:{{}})? ([^ \n]+)", text, re.M)
    assert len(samples) == 1, f"expected one unlabelled sample of {name}:\n{text}"
    return float(samples[0])


def assert_counts(server, count, by_dnn=None, by_snssai=None, by_pcf=None):
    report = server.active_sessions()
    assert report["count"] == count, report
    assert openapi.is_date_time(report["timestamp"]), report
    for key, expected in (("byDnn", by_dnn), ("bySnssai", by_snssai), ("byPcf", by_pcf)):
        assert isinstance(report[key], dict), report
        assert all(isinstance(n, int) and n >= 0 for n in report[key].values()), report
        assert sum(report[key].values()) == count, report
        for name, n in (expected or {}).items():
            assert report[key].get(name, 0) == n, (key, name, report)
    assert metric(server, GAUGE) == count
    return report


def test_counts_by_dnn_snssai_and_pcf(bsfd_factory):
    server = bsfd_factory()
    client = server.client
    assert_counts(server, 0)
    pcf_id = new_pcf_id()
    a, b, c, d = Ue(), Ue(), Ue(), Ue()
    register(client, binding(ipv4Addr=a.ipv4, dnn="internet", snssai={"sst": 1, "sd": "000001"},
                             pcfId=pcf_id, pcfFqdn="pcf-a.example.com"))
    register(client, binding(ipv4Addr=b.ipv4, dnn="internet", snssai={"sst": 1, "sd": "000001"},
                             pcfFqdn="pcf-b.example.com", pcfDiamHost="pcf-b.diameter.example.com",
                             pcfDiamRealm="diameter.example.com"))
    c_id, _ = register(client, binding(ipv4Addr=c.ipv4, dnn="ims", snssai={"sst": 1}, pcfFqdn=None,
                                       pcfDiamHost="pcf-c.diameter.example.com",
                                       pcfDiamRealm="diameter.example.com"))
    d_id, _ = register(client, binding(ipv4Addr=d.ipv4, dnn="ims", snssai={"sst": 2, "sd": "00000F"},
                                       pcfFqdn=None, pcfIpEndPoints=[{"ipv4Address": "192.0.2.44", "port": 80},
                                                                     {"ipv4Address": "192.0.2.45"}]))
    assert_counts(server, 4,
                  by_dnn={"internet": 2, "ims": 2},
                  by_snssai={"1-000001": 2, "1": 1, "2-00000F": 1},
                  by_pcf={pcf_id: 1, "pcf-b.example.com": 1, "pcf-c.diameter.example.com": 1,
                          "192.0.2.44": 1})

    assert_no_content(delete(client, c_id))
    assert_counts(server, 3, by_dnn={"internet": 2, "ims": 1}, by_snssai={"1": 0},
                  by_pcf={"pcf-c.diameter.example.com": 0})

    assert_binding(patch(client, d_id, {"pcfFqdn": "pcf-d.example.com"}), 200)
    assert_counts(server, 3, by_pcf={"pcf-d.example.com": 1, "192.0.2.44": 0})


def test_refused_requests_do_not_count(bsfd_factory):
    server = bsfd_factory()
    ue = Ue()
    register(server.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id()))
    assert post_binding(server.client, binding(supi=ue.supi)).status_code == 400
    # a collision replaces one binding by another
    register(server.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id()))
    assert_counts(server, 1)


def test_counts_survive_restart_and_kill(bsfd_factory):
    server = bsfd_factory()
    for _ in range(5):
        register(server.client, binding(ipv4Addr=Ue().ipv4))
    assert_counts(server, 5, by_dnn={"internet": 5})
    server.restart()
    assert_counts(server, 5, by_dnn={"internet": 5})
    server.kill9()
    server.start()
    assert_counts(server, 5, by_dnn={"internet": 5})


def test_ops_port_speaks_http1(bsfd_factory):
    server = bsfd_factory()
    ready = server.ops.get("/health/ready")
    assert ready.status_code == 200 and ready.http_version == "HTTP/1.1"
    metrics = server.ops.get("/metrics")
    assert metrics.headers.get("content-type", "").startswith("text/plain"), metrics.headers
    assert metric(server, GAUGE) == 0
