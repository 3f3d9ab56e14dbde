"""A priority-1 probe beside a flood (bench/admission.sh): one discovery at a time on its own
HTTP/2 connection, with 3gpp-Sbi-Message-Priority: 1, for DURATION seconds; prints one JSON
line: requests, answered (200), other statuses, failures, p50/p99/max latency in ms."""
import json
import sys
import time

import httpx

port, duration, ip = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
client = httpx.Client(http1=False, http2=True, timeout=5.0,
                      base_url=f"http://127.0.0.1:{port}/nbsf-management/v1")
lat, statuses, failures = [], {}, 0
end = time.monotonic() + duration
while time.monotonic() < end:
    t0 = time.monotonic()
    try:
        r = client.get("/pcfBindings", params={"ipv4Addr": ip},
                       headers={"3gpp-sbi-message-priority": "1"})
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        lat.append((time.monotonic() - t0) * 1000)
    except httpx.HTTPError:
        failures += 1
    time.sleep(0.005)
lat.sort()
q = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else None
print(json.dumps({"requests": len(lat) + failures, "answered": statuses.get(200, 0),
                  "statuses": statuses, "failures": failures, "p50_ms": q(0.50),
                  "p99_ms": q(0.99), "max_ms": round(lat[-1], 2) if lat else None}))
