"""Writes refused for lack of resources have no effect, and everything else keeps working:

- a full store (store.map_size_mb reached): 507 INSUFFICIENT_RESOURCES, discovery still
  answers, a restart finds every acknowledged binding and nothing else;
- a full write queue (store.queue_capacity): 503 NF_CONGESTION, none of the refused
  registrations exists, every accepted one does.
"""

import json
import subprocess
import threading

from conftest import BSFD

from support import (LOCATION, assert_not_found, assert_problem, binding, describe, found,
                     new_pcf_id)


def big_binding(n):
    """A binding with many addresses and end points: a few KB of store each, so 16 MB fill
    up after a few thousand registrations."""
    return binding(
        ipv6Prefix=f"2001:db8:{n:x}::/64",
        addIpv6Prefixes=[f"2001:db8:{n:x}:{k + 1:x}::/64" for k in range(16)],
        ipv6FrameRouteList=[f"2001:db8:{n:x}:{k + 0x100:x}::/64" for k in range(32)],
        pcfIpEndPoints=[{"ipv4Address": f"192.0.2.{k + 1}", "port": 8000 + k} for k in range(16)],
        supi=f"imsi-00109{n:010d}", gpsi=f"msisdn-4699{n:08d}", pcfId=new_pcf_id(),
        pcfSmFqdn="pcf-sm.example.com")


def register_until_full(server, threads=8, limit=200000):
    """Registers unique bindings from several connections until the store refuses one."""
    created, refused, lock, counter = {}, [], threading.Lock(), [0]
    stop = threading.Event()

    def work():
        client = server.new_client()
        try:
            while not stop.is_set():
                with lock:
                    if len(created) >= limit:
                        return
                    counter[0] += 1
                    n = counter[0]
                body = big_binding(n)
                resp = client.post("/pcfBindings", json=body)
                with lock:
                    if resp.status_code == 201:
                        created[LOCATION.match(resp.headers["location"]).group(1)] = body
                    else:
                        refused.append((body, resp))
                        stop.set()
        finally:
            client.close()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
        assert not w.is_alive()
    return created, refused


def test_full_store_refuses_writes_cleanly(bsfd_factory):
    server = bsfd_factory({"store.map_size_mb": 16})
    created, refused = register_until_full(server)
    assert len(created) > 500, "the store filled up implausibly early"
    assert refused, "the store never filled up"
    for body, resp in refused:
        assert_problem(resp, 507, "INSUFFICIENT_RESOURCES")
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    # Reads still work while the store is full, and a write is still refused cleanly.
    some_body = next(iter(created.values()))
    found(server.client, ipv6Prefix=some_body["addIpv6Prefixes"][3])
    again = server.client.post("/pcfBindings", json=big_binding(0xfff0))
    assert again.status_code == 507, describe(again)
    # A restart finds every acknowledged binding and no refused one; counters and log agree.
    server.restart()
    assert server.count() == len(created)
    for body in list(created.values())[:: max(1, len(created) // 200)]:
        assert found(server.client, ipv6Prefix=body["ipv6Prefix"])["supi"] == body["supi"]
    for body, _ in refused:
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    assert server.digest() == rebuilt_digest(server)


def rebuilt_digest(server):
    out = server.workdir / "rebuilt"
    lines = server.bsfctl("rebuild", "--out", out).stdout.split()
    return lines[-1]


def bsf_load():
    """The C load generator of the same build as bsfd (bench/bsf_load.c)."""
    tool = BSFD.parent.parent / "bench" / "bsf-load"
    assert tool.is_file(), f"{tool} is missing: build the tree"
    return tool


def test_full_write_queue_refuses_with_503_and_no_effect(bsfd_factory):
    """3000 registrations with 1000 in flight against a 16-command queue and 4-command
    transactions: some are refused with 503, and exactly the accepted ones exist."""
    server = bsfd_factory({"store.queue_capacity": 16, "store.max_batch": 4,
                           "sbi.workers": 1})
    count = 3000
    done = subprocess.run([str(bsf_load()), "--target", f"127.0.0.1:{server.sbi_port}",
                           "--mode", "register", "--count", str(count), "--start", "900000",
                           "--connections", "1", "--streams", "1000", "--json"],
                          capture_output=True, text=True, timeout=300)
    result = json.loads(done.stdout)
    statuses = {int(k): v for k, v in result["status"].items()}
    assert set(statuses) <= {201, 503}, statuses
    accepted, congested = statuses.get(201, 0), statuses.get(503, 0)
    assert accepted + congested == count
    assert congested, "1000 writes in flight never filled a 16-command queue"
    assert accepted, "every write was refused"
    # Exactly the accepted registrations exist: no refused one left anything behind.
    present = 0
    for i in range(900000, 900000 + count):
        a = 0x0A000000 + i
        resp = server.client.get("/pcfBindings", params={
            "ipv4Addr": f"{a >> 24}.{a >> 16 & 255}.{a >> 8 & 255}.{a & 255}"})
        assert resp.status_code in (200, 204), describe(resp)
        present += resp.status_code == 200
    assert present == accepted
    assert server.count() == accepted
    rejected = [line for line in server.ops.get("/metrics").text.splitlines()
                if line.startswith("bsf_sbi_rejected_queue_full_total")]
    assert rejected and int(rejected[0].split()[-1]) == congested
    problem = server.client.post("/pcfBindings", json=binding(ipv4Addr="10.255.255.254"))
    assert problem.status_code == 201, describe(problem)
