"""A small HTTP/2 server on asyncio and python3-h2, for the tests of bsfd's SBI client.

h2c with prior knowledge, or TLS with ALPN h2 (--cert/--key). serve(handler) calls
`await handler(request)` for every complete request, concurrently, and sends what it returns:
(status, [(name, value), ...], body bytes). Used as a library (the test NRF, SCP) and as a
script (the scripted peer below, for the client's own tests).

Scripted peer paths (the script's behaviour, not any 3GPP API):
  /status/<code>[?retry-after=S&server=NAME&oci=V]  answers <code>, a ProblemDetails for
                                               >= 400 (oci: a 3gpp-Sbi-Oci header)
  /delay/<ms>/...                              waits, then handles the rest of the path
  /redirect/<code>/<n>                         <code> with Location /redirect/<code>/<n-1>;
                                               n = 0 answers 200
  /flaky/<key>/<n>                             503 the first n times for <key>, then 200
  /echo                                        200 with the request (headers, body) as JSON
  /big/<bytes>                                 200 with a body of that size
  /reset                                       RST_STREAM INTERNAL_ERROR
  /goaway                                      GOAWAY, then closes the connection
Every answer carries `x-conn: <n>` (the connection's number) and `server: h2peer`.
"""

import argparse
import asyncio
import json
import re
import ssl
import sys
import threading
import urllib.parse

import h2.config
import h2.connection
import h2.events
import h2.errors


class Request:
    def __init__(self, stream_id, headers, conn_no):
        self.stream_id = stream_id
        self.headers = headers            # list of (name, value), str, in order
        self.body = b""
        self.conn_no = conn_no

    def header(self, name):
        for k, v in self.headers:
            if k == name:
                return v
        return None

    @property
    def method(self):
        return self.header(":method")

    @property
    def path(self):
        return self.header(":path")


class Reset(Exception):
    """Raised by a handler: the stream is reset."""


class GoAway(Exception):
    """Raised by a handler: GOAWAY and close."""


class _Conn(asyncio.Protocol):
    counter = 0

    def __init__(self, handler, stats):
        _Conn.counter += 1
        self.no = _Conn.counter
        self.handler = handler
        self.stats = stats
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}
        self.transport = None
        self.flow = {}

    def connection_made(self, transport):
        self.transport = transport
        self.stats["connections"] += 1
        self.stats["open"] += 1
        self.stats["transports"].add(transport)
        self.conn.initiate_connection()
        self.transport.write(self.conn.data_to_send())

    def connection_lost(self, exc):
        self.stats["open"] -= 1
        self.stats["transports"].discard(self.transport)
        for fut in self.flow.values():
            if not fut.done():
                fut.cancel()

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for ev in events:
            if isinstance(ev, h2.events.RequestReceived):
                self.requests[ev.stream_id] = Request(ev.stream_id, list(ev.headers), self.no)
            elif isinstance(ev, h2.events.DataReceived):
                req = self.requests.get(ev.stream_id)
                if req:
                    req.body += ev.data
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                req = self.requests.pop(ev.stream_id, None)
                if req:
                    self.stats["requests"] += 1
                    asyncio.ensure_future(self._serve(req))
            elif isinstance(ev, h2.events.WindowUpdated):
                for fut in list(self.flow.values()):
                    if not fut.done():
                        fut.set_result(None)
        self.transport.write(self.conn.data_to_send())

    async def _serve(self, req):
        try:
            status, headers, body = await self.handler(req)
        except Reset:
            self.conn.reset_stream(req.stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
            self.transport.write(self.conn.data_to_send())
            return
        except GoAway:
            self.conn.close_connection()
            self.transport.write(self.conn.data_to_send())
            self.transport.close()
            return
        except Exception as error:  # a bug in a handler: answer 500, keep serving
            print(f"h2peer handler error: {error!r}", file=sys.stderr)
            status, headers, body = 500, [], b""
        if self.transport.is_closing():
            return
        out = [(":status", str(status))]
        if not any(name == "server" for name, _ in headers):
            out.append(("server", "h2peer"))
        out += [("x-conn", str(self.no))] + list(headers)
        if body:
            out.append(("content-length", str(len(body))))
        try:
            self.conn.send_headers(req.stream_id, out, end_stream=not body)
            self.transport.write(self.conn.data_to_send())
            await self._send_body(req.stream_id, body)
        except Exception:
            pass  # the stream or the connection went away

    async def _send_body(self, stream_id, body):
        while body:
            window = min(self.conn.local_flow_control_window(stream_id),
                         self.conn.max_outbound_frame_size)
            if window <= 0:
                fut = asyncio.get_running_loop().create_future()
                self.flow[stream_id] = fut
                await fut
                continue
            chunk, body = body[:window], body[window:]
            self.conn.send_data(stream_id, chunk, end_stream=not body)
            self.transport.write(self.conn.data_to_send())
        self.flow.pop(stream_id, None)


def tls_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["h2"])
    return ctx


async def serve(handler, host="127.0.0.1", port=0, cert=None, key=None):
    """Starts serving; returns (server, port, stats)."""
    stats = {"connections": 0, "open": 0, "requests": 0, "transports": set()}
    loop = asyncio.get_running_loop()
    ctx = tls_context(cert, key) if cert else None
    server = await loop.create_server(lambda: _Conn(handler, stats), host, port, ssl=ctx)
    return server, server.sockets[0].getsockname()[1], stats


class ServerLoop:
    """An asyncio loop on its own thread serving `handler` on loopback (serve()): the sims'
    lifecycle, driven from the test thread."""

    def __init__(self, handler):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.handler = handler
        self.server = self.port = self.stats = None

    def start(self, port=0, before=None):
        """Serves on `port` (0: any free one), after awaiting before() on the loop if given."""
        async def go():
            if before:
                await before()
            return await serve(self.handler, "127.0.0.1", port)
        self.server, self.port, self.stats = asyncio.run_coroutine_threadsafe(
            go(), self.loop).result(10)

    def close(self, after=None):
        """Stops serving, aborts the connections, awaits after() on the loop if given, cancels
        what still runs there and ends the thread."""
        async def go():
            self.server.close()
            for t in list(self.stats["transports"]):
                t.abort()
            if after:
                await after()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        if self.server:
            asyncio.run_coroutine_threadsafe(go(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class LoopSim:
    """The lifecycle of a sim whose ServerLoop is self._loop: start() (returns the sim),
    close(), and the port it listens on."""

    def start(self):
        self._loop.start()
        return self

    def close(self):
        self._loop.close()

    @property
    def port(self):
        return self._loop.port


def problem(status, cause, detail=""):
    body = {"status": status, "cause": cause, "title": cause}
    if detail:
        body["detail"] = detail
    return [("content-type", "application/problem+json")], json.dumps(body).encode()


# ---- the scripted peer ---------------------------------------------------------------

_flaky = {}


async def scripted(req):
    path, _, query = req.path.partition("?")
    q = dict(urllib.parse.parse_qsl(query))
    parts = path.strip("/").split("/")
    while parts and parts[0] == "delay":
        await asyncio.sleep(int(parts[1]) / 1000)
        parts = parts[2:]
    kind = parts[0] if parts else ""
    if kind == "status":
        code = int(parts[1])
        headers, body = problem(code, "SCRIPTED") if code >= 400 else ([], b"")
        if "retry-after" in q:
            headers.append(("retry-after", q["retry-after"]))
        if "oci" in q:
            headers.append(("3gpp-sbi-oci", q["oci"]))
        return code, headers, body
    if kind == "redirect":
        code, n = int(parts[1]), int(parts[2])
        if n == 0:
            return 200, [("content-type", "application/json")], b'{"redirected":true}'
        return code, [("location", f"/redirect/{code}/{n - 1}")], b""
    if kind == "flaky":
        key, n = parts[1], int(parts[2])
        _flaky[key] = _flaky.get(key, 0) + 1
        if _flaky[key] <= n:
            headers, body = problem(503, "NF_CONGESTION")
            return 503, headers, body
        return 200, [("content-type", "application/json")], json.dumps(
            {"tries": _flaky[key]}).encode()
    if kind == "echo":
        return 200, [("content-type", "application/json")], json.dumps(
            {"headers": req.headers, "body": req.body.decode("utf-8", "replace")}).encode()
    if kind == "big":
        return 200, [("content-type", "application/octet-stream")], b"x" * int(parts[1])
    if kind == "reset":
        raise Reset()
    if kind == "goaway":
        raise GoAway()
    headers, body = problem(404, "RESOURCE_URI_STRUCTURE_NOT_FOUND")
    return 404, headers, body


def with_message_priority(headers, priority):
    """An answer's headers with a 3gpp-Sbi-Message-Priority (None: as they are). TS 29.500
    §5.2.3.3: one integer 0..31 without leading zeros; §6.8.4: a producer may set its
    response's priority."""
    if priority is None:
        return headers
    assert re.fullmatch(r"[0-9]|[12][0-9]|3[01]", priority), priority
    return list(headers) + [("3gpp-sbi-message-priority", priority)]


def message_priority_errors(req, expected):
    """TS 29.500's 3gpp-Sbi-Message-Priority custom header: one integer 0..31, 0 the highest;
    `expected` the value the BSF must send (seed 3.1; None: any valid value or none)."""
    values = [v for k, v in req.headers if k == "3gpp-sbi-message-priority"]
    if not values:
        return [] if expected is None else [f"3gpp-Sbi-Message-Priority missing (want {expected})"]
    if len(values) > 1 or not re.fullmatch(r"[0-9]{1,2}", values[0]) or int(values[0]) > 31:
        return [f"3gpp-Sbi-Message-Priority {values!r}: not one integer 0-31"]
    if expected is not None and values[0] != expected:
        return [f"3gpp-Sbi-Message-Priority {values[0]}, expected {expected}"]
    return []


SENDER_TS = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|"
                       r"Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2}\.\d{3} GMT$")


def request_header_errors(req):
    """What is wrong with the TS 29.500 headers every request of the BSF carries: User-Agent
    BSF-<nfInstanceId>, a 3gpp-Sbi-Sender-Timestamp (§5.2.3.2.2, milliseconds, GMT) and a
    3gpp-Sbi-Max-Rsp-Time; [] when they are right."""
    bad = []
    ua = req.header("user-agent") or ""
    if not re.match(r"^BSF-[0-9a-fA-F-]{36}( \S+)?$", ua):
        bad.append(f"User-Agent {ua!r} is not BSF-<nfInstanceId>")
    ts = req.header("3gpp-sbi-sender-timestamp") or ""
    if not SENDER_TS.match(ts):
        bad.append(f"3gpp-Sbi-Sender-Timestamp {ts!r} missing or malformed")
    mrt = req.header("3gpp-sbi-max-rsp-time") or ""
    if not mrt.isdigit():
        bad.append(f"3gpp-Sbi-Max-Rsp-Time {mrt!r} missing or malformed")
    return bad


async def _main(args):
    server, port, _ = await serve(scripted, args.host, args.port, args.cert, args.key)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(port))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", required=True)
    p.add_argument("--cert")
    p.add_argument("--key")
    try:
        asyncio.run(_main(p.parse_args()))
    except KeyboardInterrupt:
        pass

