"""Start-up with N subscriptions in the store (issue 11 §6): the time bsfd's engine takes to
count the subscribed SUPIs/GPSIs from the store's indexes and to fill the subscription cache
(its log line), and the time to ready. The store is made by build/bench/sub-gen (the
subscriptions bench/notify.py would post; through HTTP 100,000 take half an hour here).

    /usr/bin/python3 bench/notify_rebuild.py [N]     default N=100000; BSFD= another build
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

BSFD = os.environ.get("BSFD", str(ROOT / "build" / "bsfd" / "bsfd"))
GEN = str(ROOT / "build" / "bench" / "sub-gen")
STORE = pathlib.Path("/tmp/bsf-bench-rebuild")


def start(sbi, ops, log):
    t0 = time.monotonic()
    proc = subprocess.Popen([BSFD, "--set", f"store.path={STORE}",
                             "--set", f"sbi.listen=127.0.0.1:{sbi}",
                             "--set", f"ops.listen=127.0.0.1:{ops}", "--set", "sbi.workers=1",
                             "--set", "subscriptions.max_expiry=0",
                             "--set", "log.level=info"], stderr=log)
    wait_ready(ops, poll=0.02)
    return proc, time.monotonic() - t0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    shutil.rmtree(STORE, ignore_errors=True)
    sbi, ops = free_ports(2)
    t0 = time.monotonic()
    subprocess.run([GEN, str(STORE), str(n)], check=True)
    print(f"{n} subscriptions written in {time.monotonic() - t0:.1f} s", flush=True)
    with open(f"{STORE}.log", "w") as log:
        proc, ready = start(sbi, ops, log)
        proc.terminate()
        proc.wait(60)
    line = next((x for x in open(f"{STORE}.log") if "subscribed SUPI/GPSI" in x), "")
    print(re.sub(r"^\S+ INFO engine: ", "", line.strip()))
    print(f"restart to ready: {ready * 1000:.0f} ms; "
          f"load average: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
