"""A test NRF (TS 29.510 Nnrf_NFManagement) on HTTP/2 over loopback, strict to the spec.

Every request body is validated against the OpenAPI files (tests/integration/openapi.py):
NFRegister (PUT, NFProfile), NFUpdate (PATCH, application/json-patch+json: PatchItem[],
applied as RFC 6902 and the result validated as NFProfile again), NFDeregister (DELETE),
and GET of an instance. Register answers 201 (new, with Location) or 200 (replace) with
the profile and the heartBeatTimer this NRF grants; an instance that stops heartbeating for
heartBeatTimer plus a grace expires; a heartbeat for it gets 404.

Behaviour switches for failure tests: `fail_with(status, retry_after=None)` answers every
request with an error, `delay_ms` slows every answer, `stop()` / `start()` take the NRF off
the network and back on the same port. `discovery` (a pcf_sim.DiscoverySim) makes this NRF
answer Nnrf_NFDiscovery too, behind the same failure switches.

    nrf = NrfSim(heartbeat_s=1); nrf.start(); ... nrf.uri ...; nrf.stop()
Anything the NRF found wrong with a request is in nrf.violations (a test asserts it empty).
"""

import asyncio
import copy
import json
import pathlib
import re
import sys
import threading
import time
import uuid as uuid_mod

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import h2_peer  # noqa: E402
import openapi  # noqa: E402

NFM = "TS29510_Nnrf_NFManagement.yaml"
TOKEN_API = "TS29510_Nnrf_AccessToken.yaml"
PROTECTED = "/nbsf-test/v1/protected"  # a producer resource that requires a token
PREFIX = "/nnrf-nfm/v1/nf-instances/"
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                  r"[0-9a-fA-F]{12}$")


class PatchError(Exception):
    pass


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(doc, tokens):
    node = doc
    for t in tokens[:-1]:
        if isinstance(node, list):
            if not t.isdigit() or int(t) >= len(node):
                raise PatchError(f"no element {t}")
            node = node[int(t)]
        elif isinstance(node, dict):
            if t not in node:
                raise PatchError(f"no member {t}")
            node = node[t]
        else:
            raise PatchError("path through a scalar")
    return node


def apply_patch(doc, patch):
    """RFC 6902 on a copy of doc: add, remove, replace, move, copy, test. Raises PatchError."""
    doc = copy.deepcopy(doc)
    for op in patch:
        kind, tokens = op["op"], _pointer(op["path"])
        if not tokens:
            raise PatchError("operations on the whole document are not supported")
        parent, key = _parent(doc, tokens), tokens[-1]
        if kind == "test":
            if _get(parent, key) != op.get("value"):
                raise PatchError(f"test failed at {op['path']}")
        elif kind == "remove":
            _get(parent, key)
            del parent[int(key) if isinstance(parent, list) else key]
        elif kind == "replace":
            _get(parent, key)
            parent[int(key) if isinstance(parent, list) else key] = op["value"]
        elif kind == "add":
            if isinstance(parent, list):
                idx = len(parent) if key == "-" else int(key)
                if idx > len(parent):
                    raise PatchError("index out of range")
                parent.insert(idx, op["value"])
            else:
                parent[key] = op["value"]
        elif kind in ("move", "copy"):
            src_tokens = _pointer(op["from"])
            sp = _parent(doc, src_tokens)
            value = copy.deepcopy(_get(sp, src_tokens[-1]))
            if kind == "move":
                del sp[int(src_tokens[-1]) if isinstance(sp, list) else src_tokens[-1]]
            apply_patch_in_place(doc, {"op": "add", "path": op["path"], "value": value})
        else:
            raise PatchError(f"unknown op {kind}")
    return doc


def apply_patch_in_place(doc, op):
    new = apply_patch(doc, [op])
    doc.clear()
    doc.update(new)


def _get(parent, key):
    if isinstance(parent, list):
        if not key.isdigit() or int(key) >= len(parent):
            raise PatchError(f"no element {key}")
        return parent[int(key)]
    if not isinstance(parent, dict) or key not in parent:
        raise PatchError(f"no member {key}")
    return parent[key]


def _problem(status, cause, detail):
    headers, body = h2_peer.problem(status, cause, detail)
    return status, headers, body


class NrfSim:
    def __init__(self, heartbeat_s=2, grace_s=None, port=0, cert=None, key=None):
        # compiling the validators takes seconds: not while a client waits for an answer
        openapi.validator("NFProfile", NFM)
        openapi.validator("PatchItem", "TS29571_CommonData.yaml")
        openapi.validator("AccessTokenReq", TOKEN_API)
        self.tokens = {}         # access_token -> (scope, expiry monotonic)
        self.token_requests = []
        self.token_expires_s = 3600
        self.refused_scopes = {"forbidden"}
        self.heartbeat_s = heartbeat_s
        self.grace_s = heartbeat_s if grace_s is None else grace_s
        self.port = port
        self.cert, self.key = cert, key
        self.instances = {}      # id -> {"profile": dict, "last": monotonic}
        self.requests = []       # (monotonic, method, path, headers dict, body bytes)
        self.violations = []
        # 3gpp-Sbi-Message-Priority the BSF must send, by request (seed 3.1's NRF defaults;
        # a test with a message priority profile sets its values)
        self.message_priorities = {"NfRegister": "1", "AutonomousNfPatch": "3",
                                   "AutonomousNfDeRegistration": "2", "AccessToken": "1"}
        self.failure = None      # (status, retry_after) answered to everything
        # a 3gpp-Sbi-Message-Priority on every answer (TS 29.500 §5.2.3.3: 0..31, as
        # §6.8.4 lets a producer set its response's priority); None: no header
        self.answer_priority = None
        self.discovery = None    # a pcf_sim.DiscoverySim answering /nnrf-disc/ here
        self.delay_ms = 0
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = None
        self.stats = None

    # ---- control (test thread) --------------------------------------------------------

    @property
    def uri(self):
        scheme = "https" if self.cert else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def start(self):
        async def go():
            server, port, stats = await h2_peer.serve(self._handle, "127.0.0.1", self.port,
                                                      self.cert, self.key)
            return server, port, stats
        self.server, self.port, self.stats = asyncio.run_coroutine_threadsafe(
            go(), self.loop).result(10)
        return self

    def stop(self):
        """Off the network: stops listening and closes every connection."""
        async def go():
            self.server.close()
            for t in list(self.stats["transports"]):
                t.abort()
            await self.server.wait_closed()
        if self.server:
            asyncio.run_coroutine_threadsafe(go(), self.loop).result(10)
            self.server = None

    def close(self):
        self.stop()

        async def cancel_all():
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    def fail_with(self, status, retry_after=None):
        self.failure = None if status is None else (status, retry_after)

    def of(self, method, kind=None):
        """Requests seen with that method (PUT, PATCH, DELETE, GET)."""
        with self.lock:
            return [r for r in self.requests if r[1] == method]

    def registered(self, nf_id):
        with self.lock:
            self._expire()
            return nf_id in self.instances

    def expire_now(self, nf_id):
        with self.lock:
            self.instances.pop(nf_id, None)

    # ---- the NRF (its loop) -----------------------------------------------------------

    def _expire(self):
        now = time.monotonic()
        for nf_id in list(self.instances):
            inst = self.instances[nf_id]
            if now - inst["last"] > inst["profile"].get("heartBeatTimer",
                                                         self.heartbeat_s) + self.grace_s:
                del self.instances[nf_id]

    def _violation(self, text):
        self.violations.append(text)
        return _problem(400, "INVALID_MSG_FORMAT", text)

    def _check_headers(self, req):
        self.violations += h2_peer.request_header_errors(req)
        kind = ("AccessToken" if req.path.split("?")[0] == "/oauth2/token" else
                {"PUT": "NfRegister", "PATCH": "AutonomousNfPatch",
                 "DELETE": "AutonomousNfDeRegistration"}.get(req.method))
        self.violations += h2_peer.message_priority_errors(
            req, self.message_priorities.get(kind))

    async def _handle(self, req):
        status, headers, body = await self._answer(req)
        return status, h2_peer.with_message_priority(headers, self.answer_priority), body

    async def _answer(self, req):
        body = req.body
        with self.lock:
            self.requests.append((time.monotonic(), req.method, req.path,
                                  dict(req.headers), body))
        if self.delay_ms:
            await asyncio.sleep(self.delay_ms / 1000)
        if self.failure:
            status, retry_after = self.failure
            headers, pbody = h2_peer.problem(status, "NF_CONGESTION" if status == 503
                                             else "SYSTEM_FAILURE")
            if retry_after is not None:
                headers.append(("retry-after", str(retry_after)))
            return status, headers, pbody
        if self.discovery and req.path.startswith("/nnrf-disc/"):
            return await self.discovery._handle(req)
        self._check_headers(req)
        path = req.path.split("?")[0]
        if path == "/oauth2/token":
            with self.lock:
                return self._token(req, body)
        if path == PROTECTED:
            with self.lock:
                return self._protected(req)
        if path == "/nbsf-test/v1/token-requests":
            with self.lock:
                if req.method == "POST":  # revoke every token
                    self.tokens.clear()
                return 200, [("content-type", "application/json")], json.dumps(
                    {"count": len(self.token_requests)}).encode()
        if not path.startswith(PREFIX) or "/" in path[len(PREFIX):]:
            return _problem(404, "RESOURCE_URI_STRUCTURE_NOT_FOUND", path)
        nf_id = path[len(PREFIX):]
        if not UUID.match(nf_id):
            return self._violation(f"nfInstanceID {nf_id!r} is not a UUID")
        with self.lock:
            self._expire()
            handler = {"PUT": self._register, "PATCH": self._update,
                       "DELETE": self._deregister, "GET": self._get}.get(req.method)
            if not handler:
                return _problem(405, "METHOD_NOT_ALLOWED", req.method)
            return handler(req, nf_id, body)

    def _json(self, req, body, ctype):
        got = (req.header("content-type") or "").split(";")[0].strip().lower()
        if got != ctype:
            raise ValueError(f"content-type {got!r}, expected {ctype}")
        if req.header("content-length") != str(len(body)):
            raise ValueError("content-length missing or wrong")
        return json.loads(body)

    def _token(self, req, body):
        """Nnrf_AccessToken (TS 29.510 §5.4.2.2): client credentials, form-encoded."""
        import urllib.parse
        if req.method != "POST":
            return _problem(405, "METHOD_NOT_ALLOWED", req.method)
        ctype = (req.header("content-type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return self._violation(f"AccessTokenReq content-type {ctype!r}")
        form = dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True,
                                           strict_parsing=True))
        errors = openapi.errors(form, "AccessTokenReq", TOKEN_API)
        if errors:
            return self._violation("AccessTokenReq invalid: " + "; ".join(errors[:5]))
        self.token_requests.append(form)
        if form["scope"] in self.refused_scopes:
            return 400, [("content-type", "application/json")], json.dumps(
                {"error": "invalid_scope"}).encode()
        token = f"tok-{uuid_mod.uuid4()}"
        self.tokens[token] = (form["scope"], time.monotonic() + self.token_expires_s)
        rsp = {"access_token": token, "token_type": "Bearer",
               "expires_in": self.token_expires_s, "scope": form["scope"]}
        errors = openapi.errors(rsp, "AccessTokenRsp", TOKEN_API)
        assert not errors, errors
        return 200, [("content-type", "application/json"), ("cache-control", "no-store")], \
            json.dumps(rsp).encode()

    def _protected(self, req):
        auth = req.header("authorization") or ""
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        grant = self.tokens.get(token)
        if not grant or grant[1] < time.monotonic():
            return 401, [("www-authenticate", 'Bearer error="invalid_token"')], b""
        return 200, [("content-type", "application/json")], json.dumps(
            {"scope": grant[0]}).encode()

    def _register(self, req, nf_id, body):
        try:
            profile = self._json(req, body, "application/json")
        except ValueError as error:
            return self._violation(f"NFRegister: {error}")
        errors = openapi.errors(profile, "NFProfile", NFM)
        if errors:
            return self._violation("NFRegister: NFProfile invalid: " + "; ".join(errors[:5]))
        if profile.get("nfInstanceId") != nf_id:
            return self._violation("NFRegister: nfInstanceId differs from the URI")
        profile["heartBeatTimer"] = self.heartbeat_s
        new = nf_id not in self.instances
        self.instances[nf_id] = {"profile": profile, "last": time.monotonic()}
        headers = [("content-type", "application/json")]
        if new:
            headers.append(("location", f"{self.uri}{PREFIX}{nf_id}"))
        return (201 if new else 200), headers, json.dumps(profile).encode()

    def _update(self, req, nf_id, body):
        try:
            patch = self._json(req, body, "application/json-patch+json")
        except ValueError as error:
            return self._violation(f"NFUpdate: {error}")
        if not isinstance(patch, list) or not patch:
            return self._violation("NFUpdate: the body must be a non-empty PatchItem array")
        for item in patch:
            errors = openapi.errors(item, "PatchItem", "TS29571_CommonData.yaml")
            if errors:
                return self._violation("NFUpdate: PatchItem invalid: " + "; ".join(errors))
        inst = self.instances.get(nf_id)
        if not inst:
            return _problem(404, "RESOURCE_CONTEXT_NOT_FOUND", "no such NF instance")
        try:
            profile = apply_patch(inst["profile"], patch)
        except (PatchError, KeyError, ValueError) as error:
            return _problem(409, "MODIFICATION_NOT_ALLOWED", str(error))
        errors = openapi.errors(profile, "NFProfile", NFM)
        if errors:
            return self._violation("NFUpdate: patched NFProfile invalid: " + "; ".join(errors))
        inst["profile"], inst["last"] = profile, time.monotonic()
        return 204, [], b""

    def _deregister(self, req, nf_id, body):
        if body:
            return self._violation("NFDeregister carries no body")
        if self.instances.pop(nf_id, None) is None:
            return _problem(404, "RESOURCE_CONTEXT_NOT_FOUND", "no such NF instance")
        return 204, [], b""

    def _get(self, req, nf_id, body):
        inst = self.instances.get(nf_id)
        if not inst:
            return _problem(404, "RESOURCE_CONTEXT_NOT_FOUND", "no such NF instance")
        return 200, [("content-type", "application/json")], json.dumps(inst["profile"]).encode()


if __name__ == "__main__":  # standalone, for the C tests: writes its port to --port-file
    import argparse
    import os
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--token-expires", type=int, default=3600)
    p.add_argument("--fail-status", type=int, help="answer everything with this status")
    p.add_argument("--retry-after", type=int, help="with --fail-status: Retry-After (s)")
    args = p.parse_args()
    sim = NrfSim()
    sim.token_expires_s = args.token_expires
    if args.fail_status:
        sim.fail_with(args.fail_status, args.retry_after)
    sim.start()
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(sim.port))
    os.rename(args.port_file + ".tmp", args.port_file)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
