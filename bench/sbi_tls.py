"""Issue 13 §7 benchmark: discovery over TLS against h2c on long-lived connections, and full
TLS handshakes, measured as bsfd's CPU time (utime+stime from /proc), so that a shared,
loaded machine changes the wall-clock rates but less the cost per operation.

    bench/sbi_tls.py BSFD [RUNS] [REQUESTS]

One bsfd (sbi.workers=1: one core) with both listeners and an ECDSA P-256 certificate from
a per-run CA; h2load drives it. Discovery: RUNS rounds (default 3) of REQUESTS (default
100000) discoveries of one binding, 4 connections x 32 streams, alternating h2c and TLS.
Handshakes: rounds of 400 new TLS connections (h2load -c 400 -n 400: one full handshake,
TLS 1.3, X25519, and one request each); bsfd's CPU per handshake is the round's CPU minus
400 requests at the TLS per-request cost, over the handshakes counted by bsfd.
"""

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))
from bench_proc import cpu_seconds, free_ports  # noqa: E402
from tls_support import Pki  # noqa: E402

IP = "10.77.0.1"
PATH = f"/nbsf-management/v1/pcfBindings?ipv4Addr={IP}"


def metric(ops, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{ops}/metrics", timeout=10).read().decode()
    return int(re.search(rf"^{name} (\d+)", text, re.M).group(1))


def h2load(url, n, c, m, ca):
    out = subprocess.run(["h2load", "-n", str(n), "-c", str(c), "-m", str(m), url],
                         capture_output=True, text=True, timeout=600).stdout
    done = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded", out)
    rate = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out)
    ok = int(done.group(2)) if done else 0
    return ok, float(rate.group(1)) if rate else 0.0, out


def reference(cert, key):
    """The same handshake served by `openssl s_server` (this OpenSSL on this machine, no
    HTTP/2), timed by `openssl s_time -new`: what the library itself costs here."""
    port, = free_ports(1)
    srv = subprocess.Popen(["openssl", "s_server", "-accept", str(port), "-cert", str(cert),
                            "-key", str(key), "-www", "-quiet", "-num_tickets", "1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        cpu0 = cpu_seconds(srv.pid)
        out = subprocess.run(["openssl", "s_time", "-connect", f"127.0.0.1:{port}", "-new",
                              "-time", "4"], capture_output=True, text=True).stdout
        cpu = cpu_seconds(srv.pid) - cpu0
        n = int(re.search(r"(\d+) connections in", out).group(1))
        print(f"reference: openssl s_server {cpu / n * 1e6:.0f} us CPU/handshake = "
              f"{n / cpu:.0f}/s per core ({n} handshakes from openssl s_time -new)")
    finally:
        srv.terminate()
        srv.wait()


def main():
    bsfd = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    work = pathlib.Path(tempfile.mkdtemp(prefix="bsf-sbi-tls."))
    pki = Pki(work / "pki")
    cert, key = pki.issue("server", "127.0.0.1")
    plain, tls, ops = free_ports(3)
    (work / "store").mkdir()
    proc = subprocess.Popen([bsfd, "--set", f"store.path={work / 'store'}",
                             "--set", f"sbi.listen=127.0.0.1:{plain}",
                             "--set", f"sbi.tls.listen=127.0.0.1:{tls}",
                             "--set", f"sbi.tls.cert={cert}", "--set", f"sbi.tls.key={key}",
                             "--set", f"ops.listen=127.0.0.1:{ops}", "--set", "ops.admin_listen=",
                             "--set", "sbi.workers=1", "--set", "log.level=warn"],
                            stderr=open(work / "bsfd.log", "wb"))
    try:
        for _ in range(500):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{ops}/health/ready", timeout=1)
                break
            except OSError:
                time.sleep(0.02)
        body = json.dumps({"ipv4Addr": IP, "dnn": "internet", "snssai": {"sst": 1},
                           "pcfFqdn": "pcf.example.org"})
        subprocess.run(["curl", "-sf", "--http2-prior-knowledge", "-X", "POST", "-H",
                        "content-type: application/json", "-d", body, "-o", "/dev/null",
                        f"http://127.0.0.1:{plain}/nbsf-management/v1/pcfBindings"], check=True)
        os.environ["SSL_CERT_FILE"] = str(pki.ca)
        print(f"# machine: {os.cpu_count()} cores, {os.uname().release}, "
              f"load {os.getloadavg()[0]:.1f} at start (shared with other jobs)")
        per = {"h2c": [], "tls": []}
        for r in range(1, runs + 1):
            for name, url in (("h2c", f"http://127.0.0.1:{plain}{PATH}"),
                              ("tls", f"https://127.0.0.1:{tls}{PATH}")):
                cpu0 = cpu_seconds(proc.pid)
                ok, rate, out = h2load(url, requests, 4, 32, pki.ca)
                cpu = cpu_seconds(proc.pid) - cpu0
                assert ok == requests, out[-2000:]
                per[name].append(cpu / ok * 1e6)
                print(f"run {r} discovery {name}: {ok} ok, {rate:.0f} req/s wall, "
                      f"{cpu / ok * 1e6:.2f} us bsfd CPU/request")
        h2c, tlsc = sorted(per["h2c"])[len(per["h2c"]) // 2], sorted(per["tls"])[len(per["tls"]) // 2]
        print(f"discovery median: h2c {h2c:.2f} us, TLS {tlsc:.2f} us bsfd CPU/request: "
              f"TLS costs {100 * (tlsc / h2c - 1):+.1f} % (goal <= +30 %)")
        hs_cost = []
        for r in range(1, runs + 1):
            n0, cpu0 = metric(ops, "bsf_sbi_tls_handshakes_total"), cpu_seconds(proc.pid)
            t0 = time.monotonic()
            ok, _, out = h2load(f"https://127.0.0.1:{tls}{PATH}", 400, 400, 1, pki.ca)
            wall = time.monotonic() - t0
            cpu = cpu_seconds(proc.pid) - cpu0
            hs = metric(ops, "bsf_sbi_tls_handshakes_total") - n0
            assert ok == 400 and hs == 400, (ok, hs, out[-2000:])
            cost = (cpu - ok * tlsc / 1e6) / hs
            hs_cost.append(cost)
            print(f"run {r} handshakes: {hs} in {wall:.2f} s wall ({hs / wall:.0f}/s with the "
                  f"client on the same cores), {cost * 1e6:.0f} us bsfd CPU/handshake")
        med = sorted(hs_cost)[len(hs_cost) // 2]
        print(f"handshakes median: {med * 1e6:.0f} us bsfd CPU each = {1 / med:.0f} full "
              f"handshakes/s per core (goal >= 2000/s)")
        reference(cert, key)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
