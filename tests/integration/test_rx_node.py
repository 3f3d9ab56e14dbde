"""The Diameter node's threads and connections: freeDiameter's threads carry their role as
name, `diameter.cpus` keeps them (and only them) on the CPUs it lists, `diameter.tcp_nodelay`
sets TCP_NODELAY on every connection (docs/rx-gateway.md, Performance)."""

import os
import pathlib

from rx_support import rx_lab  # noqa: F401 (fixture)
from support import Ue

ROLES = {"fd-receiver", "fd-peer", "fd-routing-in", "fd-dispatch", "fd-routing-out", "fd-sender"}


def threads(pid):
    """[(name, allowed CPUs as text)] of every thread of pid."""
    out = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        allowed = next(line.split()[1] for line in (task / "status").read_text().splitlines()
                       if line.startswith("Cpus_allowed_list"))
        out.append((name, allowed))
    return out


def test_threads_are_named_after_their_role(rx_lab):
    lab = rx_lab()
    ue = Ue()
    lab.register(ue)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    names = {name for name, _ in threads(lab.bsfd.process.pid)}
    assert ROLES <= names, names


def test_diameter_cpus_keeps_the_nodes_threads_on_those_cpus(rx_lab):
    cpu = str(min(os.sched_getaffinity(0)))  # one this runner lets us use
    lab = rx_lab(settings={"diameter.cpus": cpu, "diameter.threads": "1"})
    ue = Ue()
    lab.register(ue)
    reply = lab.aar_i(ip=ue.ipv4)
    assert reply["code"] == 2001, reply
    assert lab.af.cmd(f"str session={reply['session_id']}")["code"] == 2001
    listed = threads(lab.bsfd.process.pid)
    diameter = [(n, a) for n, a in listed if n in ROLES]
    assert {n for n, _ in diameter} == ROLES, listed
    assert all(allowed == cpu for _, allowed in diameter), diameter
    if len(os.sched_getaffinity(0)) > 1:  # the rest of bsfd (SBI, engine, ops) is not pinned
        assert any(allowed != cpu for n, allowed in listed if n not in ROLES), listed


def test_tcp_nodelay_is_set_on_every_connection(rx_lab):
    lab = rx_lab(settings={"diameter.tcp_nodelay": "true", "log.level": "debug"})
    ue = Ue()
    lab.register(ue)
    assert lab.aar_i(ip=ue.ipv4)["code"] == 2001
    log = lab.bsfd.stderr_text()
    for identity in ("pcf1.test.local", "af.test.local"):
        assert f"peer {identity}: TCP_NODELAY set" in log, log[-3000:]
