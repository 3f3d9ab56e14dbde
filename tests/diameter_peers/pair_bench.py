#!/usr/bin/env python3
"""Benchmark the two test peers alone: af_peer -> pcf_peer on loopback.

Starts pcf_peer and af_peer from a build directory, runs af_peer's `load` command a few times
and prints one JSON line per run with answers/s, latency and the CPU time each process spent
per 10k answers (read from /proc/<pid>/stat, so it includes every thread of the process).
It is also a small example of driving the peers over their control sockets.

usage: pair_bench.py BUILD_DIR [--runs N] [--port P] [--fd-dumps] [--load "LOAD ARGS"] [--peer-args "OPTS"]
  e.g. pair_bench.py /tmp/peers --runs 3 --load "n=50000 mix=1 window=64"
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from peer_ctl import PeerCtl, reap

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a process (all threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of stat(5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=3890)
    ap.add_argument("--fd-dumps", action="store_true", help="keep libfdcore's default hooks")
    ap.add_argument("--load", default="n=50000 mix=1 window=64", help="arguments of the load command")
    ap.add_argument("--peer-args", default="", help="extra options for both peers, e.g. '--threads 2'")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="rxpeer-bench-")
    extra = (["--fd-dumps"] if args.fd_dumps else []) + args.peer_args.split()
    common = ["--realm", "test.local", "--no-stdin", "--no-record", "--fd-log", "error"] + extra
    pcf = subprocess.Popen([os.path.join(args.build_dir, "pcf_peer"), "--identity", "pcf.bench.local",
                            "--port", str(args.port), "--accept", "af.bench.local",
                            "--ctl", f"{tmp}/pcf.sock", "--events", f"{tmp}/pcf.events"] + common)
    af = None
    try:
        pcf_ctl = PeerCtl(f"{tmp}/pcf.sock")
        af = subprocess.Popen([os.path.join(args.build_dir, "af_peer"), "--identity", "af.bench.local",
                               "--peer", "pcf.bench.local", "--peer-port", str(args.port),
                               "--ctl", f"{tmp}/af.sock", "--events", f"{tmp}/af.events"] + common)
        af_ctl = PeerCtl(f"{tmp}/af.sock")
        af_ctl.cmd("wait-peer timeout=10000")
        for run in range(args.runs):
            pcf_ctl.cmd("sessions clear max=0")
            c_af, c_pcf = cpu_seconds(af.pid), cpu_seconds(pcf.pid)
            rep = af_ctl.cmd("load " + args.load)
            d_af, d_pcf = cpu_seconds(af.pid) - c_af, cpu_seconds(pcf.pid) - c_pcf
            n = rep["answers"] or 1
            print(json.dumps({
                "run": run + 1, "load": args.load, "fd_dumps": args.fd_dumps,
                "answers": rep["answers"], "answers_per_s": rep["answers_per_s"],
                "latency_ms": rep["latency_ms"], "result_codes": rep["result_codes"],
                "cpu_s_per_10k_answers": {"af_peer": round(d_af * 1e4 / n, 3),
                                          "pcf_peer": round(d_pcf * 1e4 / n, 3)},
            }), flush=True)
        af_ctl.cmd("quit")
        pcf_ctl.cmd("quit")
    finally:
        for p in (af, pcf):
            if p is not None:
                reap(p)


if __name__ == "__main__":
    sys.exit(main())
