#!/usr/bin/env python3
"""Rx gateway benchmark: AAR-I -> AAA round trips through bsfd, and the Oracle mix
(AAR-I : AAR-U + STR = 1 : 2), with N bindings in the store.

    bench/rx_bench.py [--build build] [--bindings 1000000] [--aar-i 100000] [--mix 50000]
                      [--window 64] [--runs 3] [--store /tmp/rx-bench-store] [--keep-store] [--relay-path]

Starts bsfd (Rx gateway on, realm example.com), loads the bindings with
`build/bench/bsf-load --mode register` (IPv4 10.0.0.0 + i, pcfDiamHost pcf<i % 16>.diam.example.com),
starts one pcf_peer per PCF identity (16) and one af_peer, then runs af_peer's load mode over
the bound addresses. For every run it prints one JSON line: messages/s, latency p50/p99 (as
the AF saw them), and the CPU time (utime + stime, /proc/PID/stat) of bsfd, of the AF and of
the 16 PCFs together, per message. Every process runs on this machine, on loopback.
"""
import argparse
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")
REALM = "example.com"
BSF_ID, AF_ID = "bsf.example.com", "af.example.com"
N_PCF = 16


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Ctl:
    def __init__(self, path, timeout=20.0):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.f = self.sock.makefile("rwb")

    def cmd(self, line):
        self.f.write((line + "\n").encode())
        self.f.flush()
        reply = json.loads(self.f.readline())
        if not reply.get("ok"):
            raise RuntimeError(f"{line!r}: {reply}")
        return reply


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return r.read().decode()
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} never answered")


def metrics(ops_port):
    return wait_http(f"http://127.0.0.1:{ops_port}/metrics")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--bindings", type=int, default=1000000)
    ap.add_argument("--aar-i", type=int, default=100000, help="AAR-I per run")
    ap.add_argument("--mix", type=int, default=50000, help="sessions per mix run (3 messages each)")
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="bsfd diameter.threads")
    ap.add_argument("--relay-path", action="store_true",
                    help="diameter.advertise_rx=false (requests on libfdcore's relay path)")
    ap.add_argument("--store", default="/tmp/rx-bench-store")
    ap.add_argument("--keep-store", action="store_true", help="reuse a loaded store")
    a = ap.parse_args()
    build = pathlib.Path(a.build)
    work = pathlib.Path(tempfile.mkdtemp(prefix="rx-bench-"))
    sbi, ops, dia, *pcf_ports = free_ports(3 + N_PCF)
    store = pathlib.Path(a.store)
    if not a.keep_store and store.exists():
        shutil.rmtree(store)
    print(f"# machine: {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GiB; logs in {work}",
          flush=True)
    procs = []

    def spawn(args, name):
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=open(work / f"{name}.err", "w"))
        procs.append(p)
        return p

    pcf_ids = [f"pcf{i}.diam.example.com" for i in range(N_PCF)]
    pcfs = []
    for pid_, port in zip(pcf_ids, pcf_ports):
        spawn([str(build / "tests/diameter_peers/pcf_peer"), "--identity", pid_, "--realm", REALM,
               "--port", str(port), "--accept", BSF_ID, "--default-route", BSF_ID,
               "--no-record", "--no-sessions", "--threads", "1", "--ctl", str(work / f"{pid_}.sock"),
               "--no-stdin", "--events", str(work / f"{pid_}.events")], pid_)
    peers = ";".join(f"{p}=127.0.0.1:{port}" for p, port in zip(pcf_ids, pcf_ports))
    bsfd = spawn([str(build / "bsfd/bsfd"), "--set", f"store.path={store}",
                  "--set", f"sbi.listen=127.0.0.1:{sbi}", "--set", f"ops.listen=127.0.0.1:{ops}",
                  "--set", "log.level=warn", "--set", "diameter.enabled=true",
                  "--set", f"diameter.identity={BSF_ID}", "--set", f"diameter.realm={REALM}",
                  "--set", f"diameter.port={dia}", "--set", f"diameter.peers={peers}",
                  "--set", f"diameter.accept={AF_ID}", "--set", f"diameter.threads={a.threads}",
                  "--set", "diameter.max_sessions=4000000",
                  "--set", f"diameter.advertise_rx={'false' if a.relay_path else 'true'}"], "bsfd")
    try:
        wait_http(f"http://127.0.0.1:{ops}/health/ready")
        for p in pcf_ids:
            Ctl(str(work / f"{p}.sock")).cmd(f"wait-peer id={BSF_ID} timeout=20000")
            pcfs.append(p)
        if not a.keep_store:
            t0 = time.time()
            out = subprocess.run([str(build / "bench/bsf-load"), "--target", f"127.0.0.1:{sbi}",
                                  "--mode", "register", "--count", str(a.bindings),
                                  "--connections", "8", "--streams", "128", "--json"],
                                 capture_output=True, text=True, check=True)
            print(f"# registered {a.bindings} bindings in {time.time() - t0:.1f} s: "
                  f"{out.stdout.strip()[:300]}", flush=True)
        spawn([str(build / "tests/diameter_peers/af_peer"), "--identity", AF_ID, "--realm", REALM,
               "--peer", BSF_ID, "--peer-port", str(dia), "--no-record", "--threads", "2",
               "--timeout-ms", "10000", "--ctl", str(work / "af.sock"), "--no-stdin",
               "--events", str(work / "af.events")], "af")
        af = Ctl(str(work / "af.sock"))
        af.cmd(f"wait-peer id={BSF_ID} timeout=20000")
        af_pid = procs[-1].pid
        pcf_pids = [p.pid for p in procs[:N_PCF]]
        # warm-up: the first pages of the store and freeDiameter's session hash
        af.cmd(f"load n=5000 window={a.window} ip=10.0.0.0 count={a.bindings}")
        offset = 5000
        for mode in ("aar-i", "mix"):
            for run in range(a.runs):
                n = a.aar_i if mode == "aar-i" else a.mix
                start_ip = offset % a.bindings
                ip = socket.inet_ntoa((0x0A000000 + start_ip).to_bytes(4, "big"))
                count = a.bindings - start_ip
                before = (cpu_seconds(bsfd.pid), cpu_seconds(af_pid),
                          sum(cpu_seconds(p) for p in pcf_pids))
                rep = af.cmd(f"load n={n} window={a.window} ip={ip} count={count}"
                             + (" mix=1" if mode == "mix" else ""))
                after = (cpu_seconds(bsfd.pid), cpu_seconds(af_pid),
                         sum(cpu_seconds(p) for p in pcf_pids))
                offset += n
                msgs = rep["answers"]
                line = {
                    "mode": mode, "relay_path": a.relay_path, "run": run + 1, "bindings": a.bindings, "window": a.window,
                    "messages": msgs, "messages_per_s": round(rep["answers_per_s"]),
                    "p50_ms": rep["latency_ms"]["p50"], "p99_ms": rep["latency_ms"]["p99"],
                    "result_codes": rep["result_codes"], "timeouts": rep["timeouts"],
                    "bsfd_us_per_msg": round((after[0] - before[0]) / msgs * 1e6, 1),
                    "af_us_per_msg": round((after[1] - before[1]) / msgs * 1e6, 1),
                    "pcfs_us_per_msg": round((after[2] - before[2]) / msgs * 1e6, 1),
                }
                print(json.dumps(line), flush=True)
        m = metrics(ops)
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
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
