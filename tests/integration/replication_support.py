"""Helpers of the replication tests (several bsfd sites and a real Kafka broker).

- wait_for / wait_converged: poll with a deadline until a condition holds;
- metrics(): a site's /metrics as {"name{labels}": value};
- Writer: a thread registering bindings at one site, recording what was acknowledged;
- kafka_events(): every event of the topics (bsfctl export --kafka), for duplicate checks;
- unpack_msgpack(): a small msgpack reader for the raw export.
"""

import functools
import json
import os
import pathlib
import struct
import subprocess
import threading
import time

import httpx

from support import Ue, binding, discover, metrics, wait_until

REPO = pathlib.Path(__file__).resolve().parents[2]
BSFCTL = pathlib.Path(os.environ.get("BSFCTL", REPO / "build" / "bsfctl" / "bsfctl"))
API = "/nbsf-management/v1"


# Replication predicates read metrics and digests: they are polled less often.
wait_for = functools.partial(wait_until, interval=0.1)


def settled(site):
    """Caught up with every topic and nothing of its own left to ship."""
    m = metrics(site)
    return m.get("bsf_replication_caught_up") == 1 and \
        m.get("bsf_replication_shipper_backlog_events") == 0


def wait_converged(sites, timeout=60):
    """Waits until every site is settled and all digests are equal; returns the digest."""
    last = {}

    def converged():
        if not all(settled(site) for site in sites):
            return None
        digests = [site.digest() for site in sites]
        last["digests"] = digests
        return digests[0] if len(set(digests)) == 1 else None

    try:
        return wait_for(converged, timeout, "equal digests at every site", interval=0.25)
    except AssertionError:
        states = [{k: v for k, v in metrics(s).items()
                   if "lag" in k or "backlog" in k or "caught_up" in k or "refused" in k}
                  for s in sites]
        raise AssertionError(f"sites did not converge: digests {last.get('digests')}, "
                             f"metrics {states}")


def registration(ue, pcf="pcf1.example.com", **members):
    return binding(supi=ue.supi, ipv4Addr=ue.ipv4, pcfFqdn=pcf, **members)


def found_everywhere(sites, ue, pcf=None):
    """True when every site discovers a binding of `ue` (of `pcf` when given)."""
    for site in sites:
        resp = discover(site.client, ipv4Addr=ue.ipv4)
        if resp.status_code != 200 or (pcf and resp.json().get("pcfFqdn") != pcf):
            return False
    return True


def gone_everywhere(sites, ue):
    return all(discover(site.client, ipv4Addr=ue.ipv4).status_code == 204 for site in sites)


class Writer(threading.Thread):
    """Registers bindings of fresh UEs at one site until stopped (or `count` are done).
    acknowledged: [(ue, binding id)] answered 201; refused: [(ue, status, body)]; errors:
    transport errors (the site was killed)."""

    def __init__(self, site, count=None, pause=0.0):
        super().__init__(daemon=True)
        self.site, self.count, self.pause = site, count, pause
        self.base_url = site.base_url
        self.acknowledged, self.refused, self.errors = [], [], []
        self.stop_event = threading.Event()

    def run(self):
        with httpx.Client(http1=False, http2=True, base_url=self.base_url, timeout=10) as client:
            while not self.stop_event.is_set():
                if self.count is not None and \
                        len(self.acknowledged) + len(self.refused) >= self.count:
                    break
                ue = Ue()
                try:
                    resp = client.post("/pcfBindings", json=registration(ue))
                except httpx.HTTPError as error:
                    self.errors.append((ue, repr(error)))
                    if len(self.errors) > 5:
                        break
                    time.sleep(0.1)
                    continue
                if resp.status_code == 201:
                    self.acknowledged.append((ue, resp.headers["location"].rsplit("/", 1)[1]))
                else:
                    self.refused.append((ue, resp.status_code, resp.text))
                if self.pause:
                    time.sleep(self.pause)

    def stop(self):
        self.stop_event.set()
        self.join(30)
        assert not self.is_alive()


def start_writers(sites, acknowledged, what="load at every site"):
    """Starts a Writer at each site; returns them once each has more than `acknowledged`
    writes acknowledged (30 s at the most)."""
    writers = [Writer(site) for site in sites]
    for w in writers:
        w.start()
    wait_for(lambda: all(len(w.acknowledged) > acknowledged for w in writers), 30, what)
    return writers


def run_bsfctl(*args, check=True, timeout=120):
    done = subprocess.run([str(BSFCTL), *map(str, args)], capture_output=True, timeout=timeout)
    if check:
        assert done.returncode == 0, f"bsfctl {' '.join(map(str, args))} -> {done.returncode}\n" \
                                     f"{done.stderr.decode(errors='replace')[-3000:]}"
        stderr = done.stderr.decode(errors="replace")
        assert "Sanitizer" not in stderr and "runtime error:" not in stderr, stderr[-3000:]
    return done


def kafka_events(broker, topics):
    """Every event of the topics as JSON objects (bsfctl export --kafka)."""
    out = run_bsfctl("export", "--kafka", broker.bootstrap, "--topics", ",".join(topics)).stdout
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def assert_log_exact(events, sites):
    """Each site's events in the topics: sequence numbers 1..N, each exactly once."""
    by_site = {}
    for event in events:
        by_site.setdefault(event["site"], []).append(event["seq"])
    for site_id, seqs in by_site.items():
        duplicates = len(seqs) - len(set(seqs))
        assert duplicates == 0, f"site {site_id}: {duplicates} duplicate event(s) in Kafka"
        assert sorted(seqs) == list(range(1, len(seqs) + 1)), \
            f"site {site_id}: sequence numbers in Kafka are not 1..{len(seqs)}"
    for site in sites:
        m = metrics(site)
        site_id = int(site.settings["site.id"])
        assert len(by_site.get(site_id, [])) == m["bsf_replication_shipped_seq"], \
            f"site {site_id}: Kafka holds {len(by_site.get(site_id, []))} events, " \
            f"the site shipped up to {m['bsf_replication_shipped_seq']}"
    return by_site


# ---- a small msgpack reader (the raw export) -------------------------------------------------

def unpack_msgpack(data, pos=0):
    """Decodes one msgpack object at data[pos:]; returns (object, next position)."""
    t = data[pos]
    pos += 1
    if t <= 0x7F:
        return t, pos
    if t >= 0xE0:
        return t - 0x100, pos
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        n, pos = (t & 0x0F, pos) if t <= 0x8F else _length(data, pos, 2 if t == 0xDE else 4)
        result = {}
        for _ in range(n):
            key, pos = unpack_msgpack(data, pos)
            result[key], pos = unpack_msgpack(data, pos)
        return result, pos
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        n, pos = (t & 0x0F, pos) if t <= 0x9F else _length(data, pos, 2 if t == 0xDC else 4)
        items = []
        for _ in range(n):
            item, pos = unpack_msgpack(data, pos)
            items.append(item)
        return items, pos
    if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB):
        n, pos = (t & 0x1F, pos) if t <= 0xBF else _length(data, pos, {0xD9: 1, 0xDA: 2,
                                                                        0xDB: 4}[t])
        return data[pos:pos + n].decode(), pos + n
    if t == 0xC0:
        return None, pos
    if t in (0xC2, 0xC3):
        return t == 0xC3, pos
    sizes = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
             0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q", 0xCA: ">f", 0xCB: ">d"}
    if t in sizes:
        fmt = sizes[t]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    raise ValueError(f"msgpack type 0x{t:02x} not handled")


def _length(data, pos, size):
    return int.from_bytes(data[pos:pos + size], "big"), pos + size


def pack_msgpack(obj):
    """Encodes what unpack_msgpack decodes (maps, lists, str, bytes, int, bool, None), each
    in its shortest form, as the events are written (a crafted event for the hold tests)."""
    if obj is None:
        return b"\xc0"
    if obj is True or obj is False:
        return b"\xc3" if obj else b"\xc2"
    if isinstance(obj, int):
        if 0 <= obj <= 0x7F:
            return bytes([obj])
        if -32 <= obj < 0:
            return struct.pack(">b", obj)
        if obj >= 0:
            for tag, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF),
                                  (0xCE, ">I", 0xFFFFFFFF), (0xCF, ">Q", 2 ** 64 - 1)):
                if obj <= top:
                    return bytes([tag]) + struct.pack(fmt, obj)
        return b"\xd3" + struct.pack(">q", obj)
    if isinstance(obj, str):
        data = obj.encode()
        n = len(data)
        head = bytes([0xA0 | n]) if n < 32 else b"\xd9" + bytes([n]) if n < 256 else \
            b"\xda" + struct.pack(">H", n)
        return head + data
    if isinstance(obj, (bytes, bytearray)):
        return b"\xc4" + bytes([len(obj)]) + bytes(obj) if len(obj) < 256 else \
            b"\xc5" + struct.pack(">H", len(obj)) + bytes(obj)
    if isinstance(obj, list):
        head = bytes([0x90 | len(obj)]) if len(obj) < 16 else b"\xdc" + struct.pack(">H", len(obj))
        return head + b"".join(pack_msgpack(item) for item in obj)
    if isinstance(obj, dict):
        head = bytes([0x80 | len(obj)]) if len(obj) < 16 else b"\xde" + struct.pack(">H", len(obj))
        return head + b"".join(pack_msgpack(k) + pack_msgpack(v) for k, v in obj.items())
    raise TypeError(f"cannot pack {type(obj).__name__}")
