"""A test SCP (Model C, TS 29.500 §6.10) on HTTP/2 over loopback.

It routes each request by its 3gpp-Sbi-Target-apiRoot (required: a request without it is
answered 400) to the target over HTTP/2 (h2c), its own apiPrefix removed, and relays the
answer with the target's Server header. OPTIONS on any path is its health API (204).

Failure switches: `fail_with(status, cause, own=True)` answers every routed request with a
ProblemDetails, the Server header naming this SCP (`SCP-<id> <name>`) when own, else a
target NF (`PCF-...`); `delay_ms` holds every answer; `options_status` answers OPTIONS with
that status instead of 204 (None: 204).
"""

import asyncio
import pathlib
import sys
import threading
import time
import uuid

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import h2_peer  # noqa: E402

HOP = {"host", "connection", "content-length", "3gpp-sbi-target-apiroot", "te",
       "transfer-encoding", "upgrade", "keep-alive"}


class ScpSim:
    def __init__(self, name, prefix=""):
        self.name = name
        self.server_header = f"SCP-{uuid.uuid4()} {name}"
        self.prefix = prefix
        self.requests = []        # (monotonic, method, path, headers dict)
        self.failure = None
        self.delay_ms = 0
        self.options_status = None
        self.lock = threading.Lock()
        self._loop = h2_peer.ServerLoop(self._handle)
        self.port = None
        self.client = None

    @property
    def uri(self):
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def start(self):
        async def open_client():  # on the loop: the client's connections belong to it
            self.client = httpx.AsyncClient(http1=False, http2=True, timeout=10)
        self._loop.start(before=open_client)
        self.port = self._loop.port
        return self

    def close(self):
        self._loop.close(after=lambda: self.client.aclose())

    def fail_with(self, status, cause=None, own=True):
        self.failure = None if status is None else (status, cause, own)

    def routed(self, method=None):
        with self.lock:
            return [r for r in self.requests
                    if r[1] != "OPTIONS" and (method is None or r[1] == method)]

    def options(self):
        with self.lock:
            return [r for r in self.requests if r[1] == "OPTIONS"]

    async def _handle(self, req):
        headers = dict(req.headers)
        with self.lock:
            self.requests.append((time.monotonic(), req.method, req.path, headers))
        if req.method == "OPTIONS":
            if self.options_status:
                return self.options_status, [("server", self.server_header)], b""
            return 204, [("server", self.server_header), ("allow", "GET, PUT, PATCH, DELETE, "
                                                          "POST, OPTIONS")], b""
        if self.delay_ms:
            await asyncio.sleep(self.delay_ms / 1000)
        if self.failure:
            status, cause, own = self.failure
            hdrs, body = h2_peer.problem(status, cause or "SYSTEM_FAILURE")
            server = self.server_header if own else f"PCF-{uuid.uuid4()} pcf1.example.org"
            return status, hdrs + [("server", server)], body
        root = headers.get("3gpp-sbi-target-apiroot")
        if not root:
            hdrs, body = h2_peer.problem(400, "MANDATORY_IE_MISSING",
                                         "3gpp-Sbi-Target-apiRoot missing")
            return 400, hdrs + [("server", self.server_header)], body
        path = req.path
        if self.prefix and path.startswith(self.prefix):
            path = path[len(self.prefix):]
        fwd = [(k, v) for k, v in req.headers if not k.startswith(":") and k not in HOP]
        fwd.append(("via", f"2.0 {self.name}"))
        try:
            answer = await self.client.request(req.method, root + path, headers=fwd,
                                               content=req.body)
        except httpx.HTTPError as error:
            hdrs, body = h2_peer.problem(504, "TARGET_NF_NOT_REACHABLE", str(error))
            return 504, hdrs + [("server", self.server_header)], body
        out = [(k, v) for k, v in answer.headers.items()
               if k in ("content-type", "location", "retry-after", "server")]
        return answer.status_code, out, answer.content
