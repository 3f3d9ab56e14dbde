"""Writes refused for lack of resources have no effect, and everything else keeps working:

- a full store (store.map_size_mb reached): 507 INSUFFICIENT_RESOURCES, discovery still
  answers, a restart finds every acknowledged binding and nothing else;
- the store's reserve (store.reserve_percent): registrations stop first, so updates and
  deregistrations still fit, and the room deregistrations free takes registrations again;
- a full write queue (store.queue_capacity): 503 NF_CONGESTION, none of the refused
  registrations exists, every accepted one does.
"""

import json
import subprocess
import threading

from conftest import BSFD

from support import (LOCATION, assert_no_content, assert_not_found, assert_problem, binding,
                     delete, describe, found, metrics, new_pcf_id, patch)


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
    """Without a reserve the store fills up to LMDB's map size: the write that does not fit
    fails whole."""
    server = bsfd_factory({"store.map_size_mb": 16, "store.reserve_percent": 0})
    created, refused = register_until_full(server)
    assert len(created) > 500, "the store filled up implausibly early"
    assert refused, "the store never filled up"
    for body, resp in refused:
        assert_problem(resp, 507, "INSUFFICIENT_RESOURCES")
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    # Reads still work while the store is full.
    some_body = next(iter(created.values()))
    found(server.client, ipv6Prefix=some_body["addIpv6Prefixes"][3])
    assert_restart_finds_exactly(server, created, [body for body, _ in refused])


def test_full_store_keeps_its_reserve_for_deregistrations(bsfd_factory):
    """With the default reserve (2 % of the map) registrations stop while updates and
    deregistrations still fit, and the room deregistrations free takes registrations again."""
    server = bsfd_factory({"store.map_size_mb": 16})
    created, refused = register_until_full(server)
    assert len(created) > 500, "the store filled up implausibly early"
    assert refused, "the store never filled up"
    for body, resp in refused:
        assert_problem(resp, 507, "INSUFFICIENT_RESOURCES")
        assert "deregistrations" in resp.json()["detail"], describe(resp)
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    again = server.client.post("/pcfBindings", json=big_binding(0xfff0))
    assert_problem(again, 507, "INSUFFICIENT_RESOURCES")
    samples = metrics(server)
    assert samples["bsf_store_full"] == 1
    assert samples["bsf_store_reserve_refusals_total"] == len(refused) + 1
    assert samples["bsf_store_free_bytes"] < 0.02 * samples["bsf_store_map_bytes"]
    # An existing session is still updated.
    ids = list(created)
    moved = dict(created[ids[0]], ipv6Prefix="2001:db8:ffff:1::/64")
    assert patch(server.client, ids[0], {"ipv6Prefix": moved["ipv6Prefix"]}).status_code == 200
    created[ids[0]] = moved
    # Deregistrations go through until the store has room again.
    deleted = deregister_until_room(server, created, ids, skip=1)  # ids[0] moved
    for body in deleted:
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    resp = server.client.post("/pcfBindings", json=big_binding(0xfff1))
    assert resp.status_code == 201, describe(resp)
    created[LOCATION.match(resp.headers["location"]).group(1)] = big_binding(0xfff1)
    assert metrics(server)["bsf_store_reserve_refusals_total"] == len(refused) + 1
    assert_restart_finds_exactly(server, created, [body for body, _ in refused] + deleted)


def deregister_until_room(server, created, ids, skip=0):
    """Deregisters the bindings `ids` (of `created`, after the first `skip`) in turn while the
    store is full, then ten more, a little past the reserve; returns their bodies, taken out of
    `created`."""
    deleted = []

    def deregister():
        binding_id = ids[skip + len(deleted)]
        assert_no_content(delete(server.client, binding_id))
        deleted.append(created.pop(binding_id))

    while metrics(server)["bsf_store_full"] == 1:
        assert len(deleted) < len(ids) // 4, "deregistrations never made room"
        deregister()
    for _ in range(10):
        deregister()
    return deleted


def assert_restart_finds_exactly(server, created, absent, samples=200, digest=None):
    """A restart finds every acknowledged binding (about `samples` of them looked up) and none
    of `absent`; the digest equals bsfctl rebuild's (`digest(server)`, by default
    rebuilt_digest)."""
    server.restart()
    assert server.count() == len(created)
    for body in list(created.values())[:: max(1, len(created) // samples)]:
        assert found(server.client, ipv6Prefix=body["ipv6Prefix"])["supi"] == body["supi"]
    for body in absent:
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    assert server.digest() == (digest or rebuilt_digest)(server)


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
    """3000 registrations with 1000 in flight against a 16-command queue and 1-command
    transactions: some are refused with 503, and exactly the accepted ones exist."""
    server = bsfd_factory({"store.queue_capacity": 16, "store.max_batch": 1,
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
