"""Writes refused for lack of resources have no effect, and everything else keeps working:

- a full store (store.map_size_mb reached): 507 INSUFFICIENT_RESOURCES, discovery still
  answers, a restart finds every acknowledged binding and nothing else;
- a full write queue (store.queue_capacity): 503 NF_CONGESTION, none of the refused
  registrations exists, every accepted one does.
"""

import asyncio
import threading

import httpx

from support import (LOCATION, Ue, assert_not_found, assert_problem, binding, describe, found,
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


async def register_burst(base_url, bodies):
    async with httpx.AsyncClient(http1=False, http2=True, base_url=base_url, timeout=30) as c:
        return await asyncio.gather(*(c.post("/pcfBindings", json=b) for b in bodies))


def test_full_write_queue_refuses_with_503_and_no_effect(bsfd_factory):
    server = bsfd_factory({"store.queue_capacity": 16, "store.max_batch": 4,
                           "sbi.workers": 1})
    ues = [Ue() for _ in range(600)]
    bodies = [binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id()) for ue in ues]
    responses = asyncio.run(register_burst(server.base_url, bodies))
    accepted = [(b, r) for b, r in zip(bodies, responses) if r.status_code == 201]
    congested = [(b, r) for b, r in zip(bodies, responses) if r.status_code == 503]
    assert len(accepted) + len(congested) == len(bodies), \
        {r.status_code for r in responses}
    assert congested, "600 concurrent writes never filled a 16-command queue"
    assert accepted, "every write was refused"
    for body, resp in congested:
        assert_problem(resp, 503, "NF_CONGESTION")
        assert_not_found(server.client, ipv4Addr=body["ipv4Addr"])
    for body, _ in accepted:
        assert found(server.client, ipv4Addr=body["ipv4Addr"])["supi"] == body["supi"]
    assert server.count() == len(accepted)
    rejected = [line for line in server.ops.get("/metrics").text.splitlines()
                if line.startswith("bsf_sbi_rejected_queue_full_total")]
    assert rejected and int(rejected[0].split()[-1]) == len(congested)
