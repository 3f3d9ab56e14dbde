"""Issue 11 §6 (notifications): registrations at a paced rate with and without subscribers,
the delay from the registration's commit to the receiver's answer (bsfd's
bsf_notification_delay_seconds: commit to 2xx, so it bounds the receipt from above), bsfd's
CPU per notification and the registration rate either way.

One bsfd (release build, sbi.workers=1), nghttpd (nghttp2's C server, h2c) as the receiver:
it answers every POST to /ok with 200 and keeps up with any rate here (our Python receiver,
which validates bodies in the tests, does not on a loaded machine), bsf-load for the
registrations. Each subscription has its own notifUri (/ok?s=i), so its own queue.

    /usr/bin/python3 bench/notify.py [N] [RATE]   default N=5000 registrations, RATE=5000/s

CPU per thread (schedstat, by thread name): the registration path is bsf-sbi-worker (HTTP/2
server, parsing, answers) + bsf-engine (transaction, matching, commit, hand-off); the sending
is bsf-sbi-client (rendering, HTTP/2 requests). NOTIFY_PERF=FILE also records
`perf record -g` of bsfd during the run with subscribers into FILE.
"""
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import httpx

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "peers"))
sys.path.insert(0, str(ROOT / "bench"))
from bench_proc import cpu_seconds, free_ports, thread_cpu, thread_cpu_delta, wait_ready  # noqa: E402

BSFD = os.environ.get("BSFD", str(ROOT / "build" / "bsfd" / "bsfd"))
LOAD = str(ROOT / "build" / "bench" / "bsf-load")


def metrics(ops):
    out = {}
    for line in httpx.get(f"http://127.0.0.1:{ops}/metrics").text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def quantile(samples, q):
    """From the delay histogram's cumulative buckets: the upper bound of the q bucket (ms)."""
    buckets = sorted((float(k.split('le="')[1].split('"')[0]), v) for k, v in samples.items()
                     if k.startswith("bsf_notification_delay_seconds_bucket") and "+Inf" not in k)
    total = samples.get("bsf_notification_delay_seconds_count", 0)
    for le, count in buckets:
        if count >= q * total:
            return le * 1000
    return float("inf")


def load(sbi, pid, start, n, rate):
    out = subprocess.run([LOAD, "--target", f"127.0.0.1:{sbi}", "--mode", "register",
                          "--count", str(n), "--start", str(start), "--connections", "4",
                          "--streams", "32", "--rate", str(rate), "--pid", str(pid), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def subscribe(sbi, rx_port, n, clients=4):
    """n subscriptions over `clients` HTTP/2 connections at once (sequential is slow here)."""
    def part(k):
        with httpx.Client(http1=False, http2=True,
                          base_url=f"http://127.0.0.1:{sbi}/nbsf-management/v1") as client:
            for i in range(k, n, clients):
                body = {"events": ["PCF_PDU_SESSION_BINDING_REGISTRATION"],
                        "notifUri": f"http://127.0.0.1:{rx_port}/ok?s={i}",
                        "notifCorreId": f"b{i}", "supi": f"imsi-00101{i:010d}"}
                assert client.post("/subscriptions", json=body).status_code == 201
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(part, range(clients)))


PATH_THREADS = ("bsf-sbi-worker", "bsf-engine")


def per_thread(delta, n):
    return ", ".join(f"{k} {v * 1e6 / n:.1f}" for k, v in sorted(delta.items()) if v > 0)


def path_us(delta, n):
    return sum(delta.get(k, 0.0) for k in PATH_THREADS) * 1e6 / n


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    rate = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    store = pathlib.Path("/tmp/bsf-bench-notify")
    shutil.rmtree(store, ignore_errors=True)
    sbi, ops, rx_port = free_ports(3)
    docroot = pathlib.Path(f"{store}.www")
    docroot.mkdir(parents=True, exist_ok=True)
    (docroot / "ok").write_bytes(b"")
    rx = subprocess.Popen(["nghttpd", "--no-tls", "-d", str(docroot), str(rx_port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = open(f"{store}.log", "w")
    proc = subprocess.Popen([BSFD, "--set", f"store.path={store}",
                             "--set", f"sbi.listen=127.0.0.1:{sbi}",
                             "--set", f"ops.listen=127.0.0.1:{ops}", "--set", "sbi.workers=1",
                             "--set", "log.level=warn"], stderr=log)
    try:
        wait_ready(ops)
        # Baseline: UEs no one subscribed to (indexes past the subscribed ones).
        t0 = thread_cpu(proc.pid)
        base = load(sbi, proc.pid, 10 * n, n, rate)
        base_threads = thread_cpu_delta(t0, thread_cpu(proc.pid))
        # n subscriptions, one per UE of the next run (PDU-session registration events).
        subscribe(sbi, rx_port, n)
        perf = None
        if os.environ.get("NOTIFY_PERF"):
            perf = subprocess.Popen(["perf", "record", "-q", "--call-graph",
                                     os.environ.get("NOTIFY_PERF_CALLGRAPH", "fp"),
                                     "-F", "2000", "-p",
                                     str(proc.pid), "-o", os.environ["NOTIFY_PERF"]],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        cpu0 = cpu_seconds(proc.pid)
        t0 = thread_cpu(proc.pid)
        with_subs = load(sbi, proc.pid, 0, n, rate)
        subs_threads = thread_cpu_delta(t0, thread_cpu(proc.pid))
        deadline = time.monotonic() + 120
        while metrics(ops).get("bsf_notifications_sent_total", 0) < n and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        cpu1 = cpu_seconds(proc.pid)
        drained = thread_cpu_delta(t0, thread_cpu(proc.pid))
        if perf:
            perf.send_signal(2)
            perf.wait(30)
        m = metrics(ops)
        sent = m.get("bsf_notifications_sent_total", 0)
        print(f"registrations without subscribers: {base['rps']:.0f}/s, "
              f"CPU {base['cpu_us_per_request']:.1f} us/registration, p99 {base['p99_ms']:.2f} ms")
        print(f"registrations with {n} subscriptions:  {with_subs['rps']:.0f}/s, "
              f"CPU {with_subs['cpu_us_per_request']:.1f} us/registration, "
              f"p99 {with_subs['p99_ms']:.2f} ms")
        print(f"notifications sent {sent:.0f} of {n}, attempts "
              f"{m.get('bsf_notification_attempts_total', 0):.0f}, "
              f"dropped {sum(v for k, v in m.items() if 'dropped' in k):.0f}")
        print(f"commit -> 2xx delay: p50 <= {quantile(m, 0.5):.0f} ms, "
              f"p99 <= {quantile(m, 0.99):.0f} ms "
              f"(mean {1000 * m['bsf_notification_delay_seconds_sum'] / max(sent, 1):.1f} ms)")
        extra = with_subs["cpu_us_per_request"] - base["cpu_us_per_request"]
        print(f"bsfd CPU per notification: {extra:.1f} us (the registration's difference); "
              f"whole run incl. draining: {(cpu1 - cpu0) * 1e6 / n:.1f} us per registration")
        print(f"per thread, us/registration, no subscriber: {per_thread(base_threads, n)}")
        print(f"per thread, us/registration, {n} subscriptions: {per_thread(subs_threads, n)}")
        print(f"per thread incl. draining, us/registration: {per_thread(drained, n)}")
        b, w = path_us(base_threads, n), path_us(subs_threads, n)
        print(f"registration path (sbi worker + engine): {b:.1f} -> {w:.1f} us/registration "
              f"({100 * (w - b) / b:+.1f} %); sending (bsf-sbi-client, drained): "
              f"{drained.get('bsf-sbi-client', 0) * 1e6 / n:.1f} us/notification")
        print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        proc.terminate()
        proc.wait(30)
        rx.terminate()
        rx.wait(10)


if __name__ == "__main__":
    main()
