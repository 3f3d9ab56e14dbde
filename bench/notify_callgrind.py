"""Instructions per registration of the notification matching (issue 11 §6, the ≤ 10 %
goal): bsfd under callgrind, registrations with no subscription anywhere, with N
subscriptions of other UEs (none matching), and of the subscribed UEs (one matching each),
each phase zeroed and dumped apart (callgrind_control). Reports, per registration, bsfd's
instructions (all threads) and those inside bsf_notify_match (inclusive).

    /usr/bin/python3 bench/notify_callgrind.py [N]     default N=500; BSFD= another build

Slow (valgrind runs bsfd ~50x slower): the rate is low, the counts small.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time


ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_proc import free_ports, wait_ready  # noqa: E402
from notify import load, subscribe  # noqa: E402

BSFD = os.environ.get("BSFD", str(ROOT / "build" / "bsfd" / "bsfd"))
OUT = pathlib.Path("/tmp/bsf-bench-callgrind")


def control(pid, *args):
    subprocess.run(["callgrind_control", *args, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


FUNCS = ("engine_main", "worker_main", "client_main", "bsf_notify_match")


def totals(path):
    """Instructions of one dump: all, and inclusive in each of FUNCS (the engine thread, the
    SBI worker thread, the SBI client thread that sends notifications, the matching)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                           str(path)], capture_output=True, text=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\(.*?\)\s+)?(\S.*)", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in m.group(2):
            out["total"] = n
        for f in FUNCS:
            if re.search(rf":{f} ", m.group(2) + " ") and f not in out:
                out[f] = n
    return out


def phase(pid, name, sbi, start, n, rate):
    control(pid, "-z")
    load(sbi, pid, start, n, rate)
    time.sleep(0.5)
    before = set(OUT.glob("cg.out*"))
    control(pid, "-d")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        new = set(OUT.glob("cg.out*")) - before
        if new:
            time.sleep(1.0)
            t = totals(max(new, key=lambda p: p.stat().st_mtime))
            path = t.get("engine_main", 0) + t.get("worker_main", 0)
            print(f"{name}: per registration, registration path (engine + SBI worker threads) "
                  f"{path / n:,.0f} instructions (engine {t.get('engine_main', 0) / n:,.0f}, "
                  f"of which bsf_notify_match {t.get('bsf_notify_match', 0) / n:,.0f}); "
                  f"sending thread {t.get('client_main', 0) / n:,.0f}; "
                  f"bsfd {t.get('total', 0) / n:,.0f}", flush=True)
            return
        time.sleep(0.2)
    raise RuntimeError("no dump")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rate = 100
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    store = OUT / "store"
    sbi, ops, rx_port = free_ports(3)
    docroot = OUT / "www"
    docroot.mkdir()
    (docroot / "ok").write_bytes(b"")
    rx = subprocess.Popen(["nghttpd", "--no-tls", "-d", str(docroot), str(rx_port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = open(OUT / "bsfd.log", "w")
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={OUT}/cg.out",
                             BSFD, "--set", f"store.path={store}",
                             "--set", f"sbi.listen=127.0.0.1:{sbi}",
                             "--set", f"ops.listen=127.0.0.1:{ops}", "--set", "sbi.workers=1",
                             "--set", "store.map_size_mb=1024",  # valgrind's address space
                             "--set", "log.level=warn"], stderr=log)
    try:
        wait_ready(ops, poll=0.2)
        load(sbi, proc.pid, 20 * n, n, rate)  # warm-up (first pages, connections)
        phase(proc.pid, "no subscription anywhere", sbi, 30 * n, n, rate)
        subscribe(sbi, rx_port, n, clients=2)
        phase(proc.pid, f"{n} subscriptions, none matching", sbi, 10 * n, n, rate)
        phase(proc.pid, f"{n} subscriptions, one matching each", sbi, 0, n, rate)
        phase(proc.pid, "the same UEs again, one matching each", sbi, 0, n, rate)
        print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        proc.terminate()
        proc.wait(120)
        rx.terminate()
        rx.wait(10)


if __name__ == "__main__":
    main()
