#!/usr/bin/env python3
"""Rx gateway benchmark: AAR-I -> AAA round trips through bsfd, and the Oracle mix
(AAR-I : AAR-U + STR = 1 : 2), with N bindings in the store.

    bench/rx_bench.py [--build build] [--bindings 1000000] [--pcfs 16] [--pcf-procs 1]
                      [--pcf-sim fast|peer] [--af-sim fast|peer] [--aar-i 100000] [--mix 50000] [--modes aar-i,mix]
                      [--window 64] [--runs 3] [--threads 2] [--relay-path] [--bsfd PATH]
                      [--set KEY=VALUE]... [--store DIR] [--keep-store]
                      [--bsfd-prefix 'valgrind --tool=callgrind ...'] [--thread-cpu]

Starts bsfd (Rx gateway on, realm example.com), the PCF simulators bsfd connects to, loads
the bindings with `build/bench/bsf-load --mode register --pcfs P` (IPv4 10.0.0.0 + i,
pcfDiamHost pcf<i % P>.diam.example.com), connects the AF simulator and runs its load (closed
loop, `--window` request chains) over the bound addresses, each run on addresses not used
before.

AF simulators (--af-sim):
  fast  tests/diameter_peers/af_fast (default): one process per run, one connection, epoll,
        no freeDiameter; the same requests as af_peer's load mode
  peer  tests/diameter_peers/af_peer (freeDiameter), driven over its control socket

PCF simulators (--pcf-sim):
  fast  tests/diameter_peers/pcf_fast: one process serves --pcfs / --pcf-procs identities,
        each on its own port and connection (epoll, one thread, no freeDiameter)
  peer  tests/diameter_peers/pcf_peer: one freeDiameter process per identity
        (--threads 1 --no-sessions --no-record)

For every run it prints one JSON line: messages/s, latency p50/p99 (as the AF saw them), the
CPU time (utime + stime, /proc/PID/stat) of bsfd, of the AF and of the PCF simulators, per
message, bsfd's context switches per message (voluntary + involuntary, all threads,
/proc/PID/task/*/status) and the share of bsfd's CPU time spent in the kernel. With --thread-cpu it also prints bsfd's per-thread CPU per message
by thread name. Every process runs on this machine, on loopback.

--keep-store reuses a store loaded by an earlier run with the same --bindings and --pcfs
(a `<store>.json` file next to it says what it holds).
"""
import argparse
import collections
import json
import os
import pathlib
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_proc import CLK_TCK, cpu_seconds, cpu_times, free_ports

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "diameter_peers"))
from peer_ctl import PeerCtl  # noqa: E402 (the test peers' folder is added just above)
REALM = "example.com"
BSF_ID, AF_ID = "bsf.example.com", "af.example.com"


def threads(pid):
    """{tid: (name, cpu seconds, context switches)} of every thread of pid."""
    out = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                head, tail = f.read().rsplit(")", 1)
            fields = tail.split()
            name = head.split("(", 1)[1]
            switches = 0
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
            out[int(task)] = (name, (int(fields[11]) + int(fields[12])) / CLK_TCK, switches)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return out


def thread_delta(before, after, messages):
    """Per thread name: CPU µs per message and threads with CPU, sorted by CPU."""
    by_name = collections.defaultdict(lambda: [0.0, 0])
    for tid, (name, cpu, _) in after.items():
        used = cpu - before.get(tid, (name, 0.0, 0))[1]
        if used > 0:
            by_name[name][0] += used
            by_name[name][1] += 1
    return {name: {"us_per_msg": round(cpu / messages * 1e6, 1), "threads": n}
            for name, (cpu, n) in sorted(by_name.items(), key=lambda kv: -kv[1][0])}


def switches(snapshot):
    return sum(s for _, _, s in snapshot.values())


def wait_http(url, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return r.read().decode()
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} never answered")


def wait_peers_up(ops, ids, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = wait_http(f"http://127.0.0.1:{ops}/metrics")
        if all(f'ocbsf_diam_peer_up{{peer="{i}"}} 1' in text for i in ids):
            return
        time.sleep(0.1)
    raise RuntimeError("bsfd did not connect to every PCF simulator")


class PeerAf:
    """af_peer (freeDiameter), one process for the whole benchmark, driven over its socket."""

    def __init__(self, a, build, work, dia, spawn):
        self.window = a.window
        self.process = spawn([str(build / "tests/diameter_peers/af_peer"), "--identity", AF_ID,
                              "--realm", REALM, "--peer", BSF_ID, "--peer-port", str(dia),
                              "--no-record", "--threads", "2", "--timeout-ms", "10000",
                              "--ctl", str(work / "af.sock"), "--no-stdin",
                              "--events", str(work / "af.events")], "af")
        self.ctl = PeerCtl(str(work / "af.sock"))
        self.ctl.cmd(f"wait-peer id={BSF_ID} timeout=30000")

    def load(self, n, ip, count, mix):
        return self.ctl.cmd(f"load n={n} window={self.window} ip={ip} count={count}"
                            + (" mix=1" if mix else ""))

    def cpu_seconds(self, report=None):
        return cpu_seconds(self.process.pid)


class FastAf:
    """af_fast: one process per load run; its CPU time comes in its report."""

    def __init__(self, a, build, work, dia, spawn):
        self.binary, self.window, self.dia = build / "tests/diameter_peers/af_fast", a.window, dia

    def load(self, n, ip, count, mix):
        out = subprocess.run([str(self.binary), "--identity", AF_ID, "--realm", REALM,
                              "--connect", f"127.0.0.1:{self.dia}", "--dest-realm", REALM,
                              "--n", str(n), "--window", str(self.window), "--ip", ip,
                              "--count", str(count)] + (["--mix"] if mix else []),
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    def cpu_seconds(self, report=None):
        return report["cpu"]["user_s"] + report["cpu"]["sys_s"] if report else 0.0


def start_af(a, build, work, dia, spawn):
    return (FastAf if a.af_sim == "fast" else PeerAf)(a, build, work, dia, spawn)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--bsfd", default=None, help="the bsfd binary (default BUILD/bsfd/bsfd)")
    ap.add_argument("--bindings", type=int, default=1000000)
    ap.add_argument("--pcfs", type=int, default=16, help="PCF identities (1..100)")
    ap.add_argument("--pcf-sim", choices=("fast", "peer"), default="fast")
    ap.add_argument("--af-sim", choices=("fast", "peer"), default="fast")
    ap.add_argument("--pcf-procs", type=int, default=1,
                    help="fast simulator: processes sharing the identities")
    ap.add_argument("--aar-i", type=int, default=100000, help="AAR-I per run")
    ap.add_argument("--mix", type=int, default=50000, help="sessions per mix run (3 messages each)")
    ap.add_argument("--modes", default="aar-i,mix")
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="bsfd diameter.threads")
    ap.add_argument("--relay-path", action="store_true",
                    help="diameter.advertise_rx=false (requests on libfdcore's relay path)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="another bsfd setting (repeatable)")
    ap.add_argument("--store", default=None, help="default /tmp/rx-bench-store-<pcfs>")
    ap.add_argument("--keep-store", action="store_true", help="reuse a loaded store")
    ap.add_argument("--bsfd-prefix", default="", help="command put before bsfd (e.g. valgrind)")
    ap.add_argument("--thread-cpu", action="store_true", help="bsfd CPU per thread name")
    a = ap.parse_args()
    if not 1 <= a.pcfs <= 100 or not 1 <= a.pcf_procs <= a.pcfs:
        ap.error("need 1 <= --pcf-procs <= --pcfs <= 100")
    build = pathlib.Path(a.build)
    work = pathlib.Path(tempfile.mkdtemp(prefix="rx-bench-"))
    sbi, ops, dia, *pcf_ports = free_ports(3 + a.pcfs)
    store = pathlib.Path(a.store or f"/tmp/rx-bench-store-{a.pcfs}")
    meta = pathlib.Path(f"{store}.json")
    wanted = {"bindings": a.bindings, "pcfs": a.pcfs}
    reuse = a.keep_store and store.exists() and meta.exists() and \
        json.loads(meta.read_text()) == wanted
    if not reuse:
        if store.exists():
            shutil.rmtree(store)
        if meta.exists():
            meta.unlink()
    print(f"# machine: {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GiB; logs in {work}; "
          f"{a.pcfs} PCF identities, {a.pcf_sim} PCF simulator, {a.af_sim} AF simulator"
          + (f" in {a.pcf_procs} process(es)" if a.pcf_sim == "fast" else ""), flush=True)
    procs = []

    def spawn(args, name):
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=open(work / f"{name}.err", "w"))
        procs.append(p)
        return p

    pcf_ids = [f"pcf{i}.diam.example.com" for i in range(a.pcfs)]
    pcf_procs = []
    if a.pcf_sim == "fast":
        for k in range(a.pcf_procs):
            mine = [(i, p) for n, (i, p) in enumerate(zip(pcf_ids, pcf_ports)) if n % a.pcf_procs == k]
            args = [str(build / "tests/diameter_peers/pcf_fast"), "--realm", REALM]
            for identity, port in mine:
                args += ["--serve", f"{identity}@127.0.0.1:{port}"]
            pcf_procs.append(spawn(args, f"pcf_fast{k}"))
    else:
        for identity, port in zip(pcf_ids, pcf_ports):
            pcf_procs.append(spawn(
                [str(build / "tests/diameter_peers/pcf_peer"), "--identity", identity, "--realm",
                 REALM, "--port", str(port), "--accept", BSF_ID, "--default-route", BSF_ID,
                 "--no-record", "--no-sessions", "--threads", "1",
                 "--ctl", str(work / f"{identity}.sock"), "--no-stdin",
                 "--events", str(work / f"{identity}.events")], identity))
    peers = ";".join(f"{p}=127.0.0.1:{port}" for p, port in zip(pcf_ids, pcf_ports))
    settings = {"store.path": store, "sbi.listen": f"127.0.0.1:{sbi}",
                "ops.listen": f"127.0.0.1:{ops}", "ops.admin_listen": "", "log.level": "warn",
                "diameter.enabled": "true", "diameter.identity": BSF_ID,
                "diameter.realm": REALM, "diameter.port": dia, "diameter.peers": peers,
                "diameter.accept": AF_ID, "diameter.threads": a.threads,
                "diameter.max_sessions": 4000000,
                "diameter.advertise_rx": "false" if a.relay_path else "true"}
    for item in a.set:
        key, _, value = item.partition("=")
        settings[key] = value
    command = shlex.split(a.bsfd_prefix) + [a.bsfd or str(build / "bsfd/bsfd")]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    bsfd = spawn(command, "bsfd")
    try:
        wait_http(f"http://127.0.0.1:{ops}/health/ready")
        print(f"# bsfd pid {bsfd.pid}", flush=True)
        wait_peers_up(ops, pcf_ids)
        if not reuse:
            t0 = time.time()
            out = subprocess.run([str(build / "bench/bsf-load"), "--target", f"127.0.0.1:{sbi}",
                                  "--mode", "register", "--count", str(a.bindings),
                                  "--pcfs", str(a.pcfs), "--connections", "8", "--streams", "128",
                                  "--json"], capture_output=True, text=True, check=True)
            meta.write_text(json.dumps(wanted))
            print(f"# registered {a.bindings} bindings in {time.time() - t0:.1f} s: "
                  f"{out.stdout.strip()[:300]}", flush=True)
        af = start_af(a, build, work, dia, spawn)
        pcf_pids = [p.pid for p in pcf_procs]
        # warm-up: the first pages of the store, connections, allocator
        af.load(5000, "10.0.0.0", a.bindings, False)
        offset = 5000
        for mode in a.modes.split(","):
            for run in range(a.runs):
                n = a.aar_i if mode == "aar-i" else a.mix
                start_ip = offset % a.bindings
                ip = socket.inet_ntoa((0x0A000000 + start_ip).to_bytes(4, "big"))
                count = a.bindings - start_ip
                t_before = threads(bsfd.pid)
                sys_before = cpu_times(bsfd.pid)[1]
                before = (cpu_seconds(bsfd.pid), af.cpu_seconds(),
                          sum(cpu_seconds(p) for p in pcf_pids))
                rep = af.load(n, ip, count, mode == "mix")
                after = (cpu_seconds(bsfd.pid), af.cpu_seconds(rep),
                         sum(cpu_seconds(p) for p in pcf_pids))
                t_after = threads(bsfd.pid)
                sys_used = cpu_times(bsfd.pid)[1] - sys_before
                offset += n
                msgs = rep["answers"]
                line = {
                    "mode": mode, "pcfs": a.pcfs, "pcf_sim": a.pcf_sim, "af_sim": a.af_sim,
                    "run": run + 1,
                    "bindings": a.bindings, "window": a.window, "messages": msgs,
                    "messages_per_s": round(rep["answers_per_s"]),
                    "p50_ms": rep["latency_ms"]["p50"], "p99_ms": rep["latency_ms"]["p99"],
                    "max_ms": rep["latency_ms"]["max"],
                    "result_codes": rep["result_codes"], "timeouts": rep["timeouts"],
                    "bsfd_us_per_msg": round((after[0] - before[0]) / msgs * 1e6, 1),
                    "af_us_per_msg": round((after[1] - before[1]) / msgs * 1e6, 1),
                    "pcfs_us_per_msg": round((after[2] - before[2]) / msgs * 1e6, 1),
                    "bsfd_cs_per_msg": round((switches(t_after) - switches(t_before)) / msgs, 2),
                    "bsfd_sys_share": round(sys_used / max(after[0] - before[0], 1e-9), 2),
                }
                if a.relay_path or a.set:
                    line["options"] = {"relay_path": a.relay_path, "set": a.set}
                if a.thread_cpu:
                    line["bsfd_threads"] = thread_delta(t_before, t_after, msgs)
                print(json.dumps(line), flush=True)
        m = wait_http(f"http://127.0.0.1:{ops}/metrics")
        for l in m.splitlines():
            if l.startswith(("ocbsf_diam_pending_requests ", "ocbsf_diam_sessions ",
                             'ocbsf_diam_events_total{event="lost"}')):
                print("#", l)
        with open(f"/proc/{bsfd.pid}/status") as f:
            print("#", " ".join(l.strip() for l in f if l.startswith(("VmRSS", "VmHWM"))))
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
