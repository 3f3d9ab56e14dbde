#!/usr/bin/env python3
"""CPU of bsfd per discovery with and without access-token checks (issue 13 §2).

Starts bsfd (release build, sbi.workers=1) three times on a fresh store: without OAuth2,
with sbi.oauth2.required and an RS256 token, with an ES256 token; h2load sends the same
discovery (one binding, found: 200) N times on C connections × S streams, with the token in
`authorization`; bsfd's utime+stime per request is the figure (the difference is the check).

    bench/oauth2_sbi.py [--requests 100000] [--bsfd build/bsfd/bsfd]
"""

import argparse
import base64
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from bench_proc import cpu_seconds, free_ports  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(alg, key):
    now = int(time.time())
    claims = {"iss": "0b1f2a3c-4d5e-4f60-8a7b-9c0d1e2f3a4b",
              "sub": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "aud": ["BSF"],
              "scope": "nbsf-management", "exp": now + 3600, "iat": now}
    signing_input = (b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode()) + "." +
                     b64url(json.dumps(claims).encode())).encode()
    if alg == "RS256":
        sig = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input.decode() + "." + b64url(sig)


def run(bsfd, work, settings, auth, args):
    sbi, ops = free_ports(2)
    store = work / f"store{sbi}"
    cmd = [bsfd, "--set", f"sbi.listen=127.0.0.1:{sbi}", "--set", f"ops.listen=127.0.0.1:{ops}",
           "--set", "ops.admin_listen=", "--set", f"store.path={store}",
           "--set", "sbi.workers=1"]
    for k, v in settings.items():
        cmd += ["--set", f"{k}={v}"]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{ops}/health/ready").status == 200:
                    break
            except OSError:
                time.sleep(0.05)
        headers = ["-H", f"authorization: Bearer {auth}"] if auth else []
        body = json.dumps({"dnn": "internet", "snssai": {"sst": 1, "sd": "000001"},
                           "pcfFqdn": "pcf1.example.com", "ipv4Addr": "10.9.9.9"})
        bf = work / "body.json"
        bf.write_text(body)
        subprocess.run(["h2load", "-n1", "-c1", "-d", str(bf), "-H", "content-type: application/json",
                        *headers, f"http://127.0.0.1:{sbi}/nbsf-management/v1/pcfBindings"],
                       check=True, capture_output=True)
        url = f"http://127.0.0.1:{sbi}/nbsf-management/v1/pcfBindings?ipv4Addr=10.9.9.9"
        c0 = cpu_seconds(proc.pid)
        out = subprocess.run(["h2load", f"-n{args.requests}", f"-c{args.connections}",
                              f"-m{args.streams}", "-t1", *headers, url],
                             check=True, capture_output=True, text=True).stdout
        cpu = cpu_seconds(proc.pid) - c0
        ok = re.search(r"status codes: (\d+) 2xx", out)
        rps = re.search(r"finished in [^,]+, ([\d.]+) req/s", out)
        assert ok and int(ok.group(1)) == args.requests, out
        return cpu / args.requests * 1e6, float(rps.group(1))
    finally:
        proc.terminate()
        proc.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--requests", type=int, default=100000)
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--streams", type=int, default=32)
    p.add_argument("--bsfd", default=str(ROOT / "build" / "bsfd" / "bsfd"))
    args = p.parse_args()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    with tempfile.TemporaryDirectory() as d:
        work = pathlib.Path(d)
        keys = work / "nrf.pem"
        keys.write_bytes(b"".join(k.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            for k in (rsa_key, ec_key)))
        on = {"sbi.oauth2.required": "true", "sbi.oauth2.keys": str(keys)}
        cases = [("no OAuth2", {}, None), ("RS256 token", on, token("RS256", rsa_key)),
                 ("ES256 token", on, token("ES256", ec_key)),
                 ("ES256, validate_signature=false",
                  {**on, "sbi.oauth2.validate_signature": "false"}, token("ES256", ec_key))]
        base = None
        for name, settings, auth in cases:
            us, rps = run(args.bsfd, work, settings, auth, args)
            base = us if base is None else base
            print(f"{name:34s} {us:7.2f} us CPU per discovery (+{us - base:6.2f}), "
                  f"{rps:9.0f} req/s")


if __name__ == "__main__":
    main()
