#!/usr/bin/env python3
"""Replication benchmark (issue 3): replication lag between two sites at a fixed registration
rate, register throughput and latency with log.durability=replicated (and local / embedded
for comparison), replay speed from Kafka into LMDB.

    bench/replication.py [--rate 5000] [--seconds 30] [--count 200000] [--replay-events 1000000]

Starts its own Kafka broker (scripts/kafka-broker.sh, fresh directory, its own ports) and
bsfd sites from the release build (scripts/build.sh release). Every figure comes with the CPU
time (utime + stime from /proc/PID/stat) of bsfd, of the other site and of the broker's JVM,
per operation: on a 2-core machine shared with the load generator, rates alone mislead.

Lag is bsfd's own histogram bsf_replication_apply_delay_seconds at the receiving site: time from
an event's HLC (taken at the writing site just before its local commit) to the commit of the
apply transaction here. p50/p99 are interpolated inside the histogram's buckets.

BSFCTL=PATH runs another bsfctl (a wrapper such as `perf record ... bsfctl "$@"` to profile
the replay).
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

from bench_proc import cpu_seconds, free_ports

ROOT = pathlib.Path(__file__).resolve().parents[1]
BSFD = ROOT / "build" / "bsfd" / "bsfd"
BSFCTL = pathlib.Path(os.environ.get("BSFCTL", ROOT / "build" / "bsfctl" / "bsfctl"))
LOAD = ROOT / "build" / "bench" / "bsf-load"
BROKER = ROOT / "scripts" / "kafka-broker.sh"


class Site:
    def __init__(self, work, site_id, settings):
        self.dir = work / f"site{site_id}-{uuid.uuid4().hex[:6]}"
        self.dir.mkdir()
        self.sbi, self.ops = free_ports(2)
        self.settings = {"site.id": site_id, "store.path": self.dir / "store",
                         "sbi.listen": f"127.0.0.1:{self.sbi}",
                         "ops.listen": f"127.0.0.1:{self.ops}", "ops.admin_listen": "",
                         "log.level": "warn",
                         "sbi.workers": 1, **settings}

    def start(self):
        cmd = [str(BSFD)]
        for k, v in self.settings.items():
            cmd += ["--set", f"{k}={v}"]
        self.log = open(self.dir / "stderr.log", "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.ops}/health/ready", timeout=1)
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"bsfd did not start: {(self.dir / 'stderr.log').read_text()}")
                time.sleep(0.05)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        self.log.close()

    def metrics(self):
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.ops}/metrics", timeout=5).read()
        values = {}
        for line in text.decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        return values

    def cpu(self):
        return cpu_seconds(self.proc.pid)


def histogram(m, name):
    buckets = sorted(((float(k.split('le="')[1].rstrip('"}')) if "+Inf" not in k
                       else float("inf")), v) for k, v in m.items()
                     if k.startswith(name + "_bucket"))
    return buckets


def quantile(before, after, q):
    """q-quantile of the events counted between two snapshots of a cumulative histogram."""
    pairs = [(le, a - b) for (le, a), (_, b) in zip(after, before)]
    total = pairs[-1][1]
    if not total:
        return float("nan")
    target, prev_le, prev_c = q * total, 0.0, 0.0
    for le, c in pairs:
        if c >= target:
            if le == float("inf"):
                return prev_le
            return prev_le + (le - prev_le) * (target - prev_c) / max(c - prev_c, 1)
        prev_le, prev_c = le, c
    return prev_le


def load(site, count, start, connections, streams, rate=0):
    cmd = [str(LOAD), "--target", f"127.0.0.1:{site.sbi}", "--mode", "register", "--count",
           str(count), "--start", str(start), "--connections", str(connections), "--streams",
           str(streams), "--pid", str(site.proc.pid), "--json"]
    if rate:
        cmd += ["--rate", str(rate)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return json.loads(done.stdout)


def wait_settled(sites, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ms = [s.metrics() for s in sites]
        if all(m.get("bsf_replication_caught_up") == 1 and
               m.get("bsf_replication_shipper_backlog_events") == 0 for m in ms):
            return
        time.sleep(0.2)
    sys.exit("sites did not settle")


EXTRA = {}  # --set settings given on the command line (--site-set key=value)


def kafka_settings(bootstrap, topics, site_id, durability="local"):
    return {"log.backend": "kafka", "log.durability": durability, "kafka.brokers": bootstrap,
            "kafka.topic": topics[site_id - 1], "kafka.consume_topics": ";".join(topics),
            **EXTRA}


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "?")
    mem = next(int(l.split()[1]) // 1024 // 1024 for l in open("/proc/meminfo")
               if l.startswith("MemTotal"))
    return f"{os.cpu_count()} cores ({model}), {mem} GiB, kernel {os.uname().release}, " \
           f"load average at start {os.getloadavg()[0]:.2f}"


def lag_run(work, bootstrap, broker_pid, rate, seconds):
    topics = [f"bench.{uuid.uuid4().hex[:8]}.{i}" for i in (1, 2)]
    a = Site(work, 1, kafka_settings(bootstrap, topics, 1)).start()
    b = Site(work, 2, kafka_settings(bootstrap, topics, 2)).start()
    load(a, 2000, 10_000_000, 2, 8)  # warm up the producer and the consumer
    wait_settled([a, b])
    before = b.metrics()
    cpu0 = (a.cpu(), b.cpu(), cpu_seconds(broker_pid))
    count = rate * seconds
    proc = subprocess.Popen([str(LOAD), "--target", f"127.0.0.1:{a.sbi}", "--mode", "register",
                             "--count", str(count), "--start", "0", "--connections", "4",
                             "--streams", "64", "--rate", str(rate), "--json"],
                            stdout=subprocess.PIPE, text=True)
    max_lag_ms = max_lag_events = 0
    while proc.poll() is None:
        m = b.metrics()
        max_lag_ms = max(max_lag_ms, m.get('bsf_replication_lag_seconds{source_site="1"}', 0) * 1e3)
        max_lag_events = max(max_lag_events, m.get('bsf_replication_lag_events{source_site="1"}', 0))
        time.sleep(0.2)
    result = json.loads(proc.stdout.read())
    wait_settled([a, b])
    after = b.metrics()
    cpu1 = (a.cpu(), b.cpu(), cpu_seconds(broker_pid))
    h0 = histogram(before, "bsf_replication_apply_delay_seconds")
    h1 = histogram(after, "bsf_replication_apply_delay_seconds")
    ma = a.metrics()
    digests = [subprocess.run([str(BSFCTL), "--store", s.settings["store.path"], "digest"],
                              capture_output=True, text=True).stdout.strip() for s in (a, b)]
    a.stop()
    b.stop()
    return {
        "offered_rate": rate, "registrations": result["requests"],
        "achieved_rate": round(result["rps"]), "register_p50_ms": result["p50_ms"],
        "register_p99_ms": result["p99_ms"], "status": result["status"],
        "lag_p50_ms": round(quantile(h0, h1, 0.50) * 1e3, 1),
        "lag_p99_ms": round(quantile(h0, h1, 0.99) * 1e3, 1),
        "lag_max_gauge_ms": max_lag_ms, "lag_max_gauge_events": max_lag_events,
        "kafka_transactions": ma['bsf_replication_kafka_transactions_total{result="committed"}'],
        "cpu_us_per_registration": {
            "site_a (register + ship)": round((cpu1[0] - cpu0[0]) / count * 1e6, 1),
            "site_b (apply)": round((cpu1[1] - cpu0[1]) / count * 1e6, 1),
            "broker": round((cpu1[2] - cpu0[2]) / count * 1e6, 1)},
        "digests_equal": digests[0] == digests[1],
    }


def throughput_run(work, bootstrap, broker_pid, durability, count):
    if durability == "embedded":
        a = Site(work, 1, {}).start()
        b = None
    else:
        topics = [f"bench.{uuid.uuid4().hex[:8]}.{i}" for i in (1, 2)]
        a = Site(work, 1, kafka_settings(bootstrap, topics, 1, durability)).start()
        b = Site(work, 2, kafka_settings(bootstrap, topics, 2)).start()
        load(a, 2000, 10_000_000, 2, 8)
        wait_settled([a, b])
    cpu0 = (b.cpu() if b else 0, cpu_seconds(broker_pid))
    result = load(a, count, 0, 8, 128)
    m = a.metrics()
    if b:
        wait_settled([a, b])
    cpu1 = (b.cpu() if b else 0, cpu_seconds(broker_pid))
    out = {"durability": durability, "registrations": result["requests"],
           "rate": round(result["rps"]), "p50_ms": result["p50_ms"], "p99_ms": result["p99_ms"],
           "status": result["status"],
           "cpu_us_per_registration": {"site_a": result["cpu_us_per_request"]}}
    if b:
        out["cpu_us_per_registration"]["site_b (apply)"] = round((cpu1[0] - cpu0[0]) / count * 1e6, 1)
        out["cpu_us_per_registration"]["broker"] = round((cpu1[1] - cpu0[1]) / count * 1e6, 1)
        txn = m['bsf_replication_kafka_transactions_total{result="committed"}']
        out["kafka_transactions"] = txn
        out["kafka_transaction_ms_mean"] = round(
            m["bsf_replication_kafka_transaction_seconds_sum"] * 1e3 / max(txn, 1), 2)
        b.stop()
    a.stop()
    return out


def replay_run(work, bootstrap, broker_pid, events):
    """Fills one site's topic with `events` registrations (durability=local), then replays
    it into a fresh store with bsfctl."""
    topic = f"bench.{uuid.uuid4().hex[:8]}.1"
    # admission control off: a fill that sheds would leave fewer events than counted below
    a = Site(work, 1, {**kafka_settings(bootstrap, [topic], 1),
                       "admission.enabled": "false"}).start()
    t0 = time.monotonic()
    done = 0
    while done < events:
        n = min(200_000, events - done)
        status = load(a, n, done, 8, 128)["status"]
        if status != {"201": n}:
            sys.exit(f"the fill was not registered whole: {status}")
        done += n
    wait_settled([a])
    fill_s = time.monotonic() - t0
    live = subprocess.run([str(BSFCTL), "--store", a.settings["store.path"], "digest"],
                          capture_output=True, text=True).stdout.strip()
    a.stop()
    out = work / "replayed"
    cpu0 = cpu_seconds(broker_pid)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.Popen([str(BSFCTL), "replay", "--kafka", bootstrap, "--topics", topic,
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    stdout, stderr = proc.communicate()
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu1 = cpu_seconds(broker_pid)
    summary = [l for l in stderr.splitlines() if "events read" in l]
    if not summary or not summary[-1].startswith(f"{events} events read"):
        sys.exit(f"the replay did not read {events} events: {stderr[-300:]}")
    size = sum(f.stat().st_size for f in out.iterdir())
    shutil.rmtree(out)
    return {"events": events, "fill_seconds": round(fill_s, 1),
            "replay_wall_seconds": round(wall, 2),
            "replay_events_per_second": round(events / wall),
            "bsfctl_summary": summary[-1] if summary else stderr[-300:],
            "bsfctl_cpu_seconds": round(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, 2),
            "bsfctl_max_rss_mib": round(r1.ru_maxrss / 1024),
            "broker_cpu_seconds": round(cpu1 - cpu0, 2),
            "digest_equal": stdout.strip() == live, "store_bytes": size}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rate", type=int, default=5000)
    p.add_argument("--seconds", type=int, default=30)
    p.add_argument("--count", type=int, default=200_000)
    p.add_argument("--replay-events", type=int, default=1_000_000)
    p.add_argument("--only", choices=["lag", "throughput", "replay"])
    p.add_argument("--site-set", action="append", default=[], metavar="KEY=VALUE",
                   help="one more bsfd setting for the Kafka sites, e.g. kafka.ship_interval_ms=10")
    args = p.parse_args()
    EXTRA.update(item.split("=", 1) for item in args.site_set)
    work = pathlib.Path(tempfile.mkdtemp(prefix="bsf-repl-bench-"))
    port, cport = free_ports(2)
    bootstrap = subprocess.run(["bash", str(BROKER), "start", str(work / "kafka"), str(port),
                                str(cport)], capture_output=True, text=True,
                               check=True).stdout.strip()
    broker_pid = int((work / "kafka" / "kafka.pid").read_text())
    print(f"# machine: {machine()}")
    print(f"# broker {bootstrap} (pid {broker_pid}), work dir {work}")
    try:
        if args.only in (None, "lag"):
            print("## lag", json.dumps(lag_run(work, bootstrap, broker_pid, args.rate,
                                               args.seconds), indent=1))
        if args.only in (None, "throughput"):
            for durability in ("embedded", "local", "replicated"):
                print("## throughput", json.dumps(throughput_run(work, bootstrap, broker_pid,
                                                                 durability, args.count),
                                                  indent=1))
        if args.only in (None, "replay"):
            print("## replay", json.dumps(replay_run(work, bootstrap, broker_pid,
                                                     args.replay_events), indent=1))
    finally:
        subprocess.run(["bash", str(BROKER), "stop", str(work / "kafka")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
