"""The binding audit with three sites through a real Kafka broker (issue 12 §1): each binding
is audited by the site that created it only, the audit events and the removal replicate, and
every site converges to the same store."""

import pathlib
import sys

from replication_support import found_everywhere, gone_everywhere, wait_converged, wait_for
from support import Ue, binding, register

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
from pcf_sim import PcfSim  # noqa: E402

TIMEOUT = 40
AUDIT = {"audit.interval": "1s", "audit.min_ttl": "1s", "audit.max_ttl": "1h",
         "audit.query_timeout": "500ms"}


def test_one_site_audits_each_binding_and_all_converge(site_factory):
    pcf = PcfSim("found").start()
    try:
        a, b, c = site_factory.start(3, AUDIT)
        ues = {name: Ue() for name in ("from-a", "from-b")}
        ids = {}
        for name, site in (("from-a", a), ("from-b", b)):
            ue = ues[name]
            body = binding(supi=ue.supi, ipv4Addr=ue.ipv4,
                           **{"vendorSpecific-000111": {"notificationUrl": pcf.url(name)}})
            ids[name], _ = register(site.client, body)
        wait_for(lambda: all(found_everywhere([a, b, c], ue) for ue in ues.values()), TIMEOUT,
                 "both bindings at every site")
        wait_for(lambda: len(pcf.queries_of("from-a")) >= 3 and
                 len(pcf.queries_of("from-b")) >= 3, TIMEOUT, "three audits of each")
        # one auditor each: its creator (the User-Agent names the BSF instance)
        agents = {name: {q[2]["user-agent"] for q in pcf.queries_of(name)} for name in ids}
        assert len(agents["from-a"]) == 1 and len(agents["from-b"]) == 1, agents
        assert agents["from-a"] != agents["from-b"], agents
        # at most one query per binding per audit interval (not one per site)
        times = [q[0] for q in pcf.queries_of("from-a")]
        assert all(t2 - t1 >= 0.9 for t1, t2 in zip(times, times[1:])), times

        # A's PCF lost the session: A removes it, the removal reaches B and C
        pcf.modes["from-a"] = "not_found"
        wait_for(lambda: gone_everywhere([a, b, c], ues["from-a"]), TIMEOUT,
                 "the audited binding gone everywhere")
        assert found_everywhere([a, b, c], ues["from-b"])
        wait_converged([a, b, c])  # every digest equal (the audit goes on writing after)
        history = c.history(binding=ids["from-a"])
        kinds = {(e["type"], e["site"]) for e in history}
        assert ("AuditConfirmed", 1) in kinds and ("BindingDeregistered", 1) in kinds, history
        assert all(e["site"] == 1 for e in history), history
        dereg = [e for e in history if e["type"] == "BindingDeregistered"]
        assert [e["reason"] for e in dereg] == ["audit_not_found"], dereg
        assert all(e["site"] == 2 for e in a.history(binding=ids["from-b"])), "B audits its own"
        assert not pcf.violations, pcf.violations
    finally:
        pcf.close()
