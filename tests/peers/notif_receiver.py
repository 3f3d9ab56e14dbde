"""A receiver of Nbsf_Management notifications (the `myNotification` callback of TS 29.521:
POST of a BsfNotification to the subscription's notifUri) on HTTP/2 over loopback.

Every request is checked against the spec: method POST, content-type application/json, the
body valid against BsfNotification (tests/integration/openapi.py); what is wrong goes to
`violations` (a test asserts it empty). What it answers depends on the path:

  /ok/<name>                 204
  /fail/<name>/<n>           503 ProblemDetails the first n times for <name>, then 204
  /error/<name>              500 ProblemDetails, always
  /hang/<name>               never answers (the client's timeout ends the attempt)
  /moved/<code>/<name>       <code> (307 or 308) with Location /ok/<name>

    rx = NotifReceiver().start(); uri = rx.uri("/ok/a"); ... rx.received("a"); rx.close()
"""

import asyncio
import json
import pathlib
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import h2_peer  # noqa: E402
import openapi  # noqa: E402

NBSF = "TS29521_Nbsf_Management.yaml"


class NotifReceiver:
    def __init__(self):
        self.port = None
        self.lock = threading.Lock()
        self.requests = []    # (monotonic, path, headers dict, body bytes, status, name)
        self.violations = []
        self.attempts = {}    # name -> requests seen (answered or not)
        self._loop = h2_peer.ServerLoop(self._handle)

    def uri(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self):
        self._loop.start(self.port or 0)
        self.port = self._loop.port
        return self

    def close(self):
        self._loop.close()

    # ---- what was received (test thread) ---------------------------------------------

    def received(self, name=None):
        """The BsfNotification bodies answered 204, for path name `name` (any when None)."""
        with self.lock:
            return [json.loads(r[3]) for r in self.requests
                    if r[4] == 204 and (name is None or r[5] == name)]

    def headers(self, name):
        with self.lock:
            return [r[2] for r in self.requests if r[5] == name]

    def times(self, name):
        with self.lock:
            return [r[0] for r in self.requests
                    if r[4] == 204 and r[5] == name]

    def count(self, name):
        with self.lock:
            return self.attempts.get(name, 0)

    # ---- the server (its own thread) --------------------------------------------------

    def _check(self, req):
        wrong = []
        if req.method != "POST":
            wrong.append(f"method {req.method}")
        if (req.header("content-type") or "").split(";")[0].strip() != "application/json":
            wrong.append(f"content-type {req.header('content-type')}")
        try:
            body = json.loads(req.body)
            errs = openapi.errors(body, "BsfNotification", NBSF)
            wrong.extend(f"BsfNotification: {e}" for e in errs)
        except ValueError as e:
            wrong.append(f"body is not JSON: {e}")
        for name in ("3gpp-sbi-callback", "3gpp-sbi-sender-timestamp", "user-agent"):
            if not req.header(name):
                wrong.append(f"no {name} header")
        return wrong

    async def _handle(self, req):
        parts = req.path.split("?")[0].strip("/").split("/") + [""]
        name = parts[2] if parts[0] == "moved" else parts[1]
        wrong = self._check(req)
        with self.lock:
            self.attempts[name] = self.attempts.get(name, 0) + 1
            n = self.attempts[name]
            self.violations.extend(f"{req.path}: {w}" for w in wrong)
        kind = parts[0]
        if kind == "hang":
            await asyncio.sleep(3600)
        status, headers, body = 204, [], b""
        if kind == "fail" and n <= int(parts[2]):
            status = 503
            headers, body = h2_peer.problem(503, "NF_CONGESTION")
        elif kind == "error":
            status = 500
            headers, body = h2_peer.problem(500, "SYSTEM_FAILURE")
        elif kind == "moved":
            status, headers = int(parts[1]), [("location", f"/ok/{name}")]
        with self.lock:
            self.requests.append((time.monotonic(), req.path, dict(req.headers), req.body,
                                  status, name))
        return status, headers, body
