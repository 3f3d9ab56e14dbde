"""Helpers shared by the Nbsf_Management integration tests.

- Ue: a set of UE addresses and identities that no other test uses;
- binding(): a valid PcfBinding request body;
- register / discover / delete / patch: the four operations;
- assert_* : checks of status, content-type, schema and ProblemDetails;
- serving(): a fixture's run of a simulator (tests/peers) that must see no violation;
- sbi_time(): TS 29.500 timestamps for the 3gpp-Sbi-*-Timestamp headers;
- h2_request(): one raw HTTP/2 request when httpx cannot express it.
"""

import datetime
import itertools
import json
import re
import socket
import time
import uuid
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events

import openapi

API_PATH = "/nbsf-management/v1"
MERGE_PATCH = "application/merge-patch+json"
LOCATION = re.compile(r"https?://[^/?#]+/nbsf-management/v1/pcfBindings/([0-9a-f]{32})")
PCF_FQDN = "pcf1.example.com"
DEFAULT_SNSSAI = {"sst": 1, "sd": "000001"}

_numbers = itertools.count(1)


class Ue:
    """UE addresses and identities unique within the test run (one /48 of IPv6 each)."""

    def __init__(self):
        n = self.n = next(_numbers)
        assert n <= 0xFFFF, "too many UEs for the address plan"
        self.ipv4 = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
        self.ipv6 = f"2001:db8:{n:x}::/64"
        self.ipv6_addr = f"2001:db8:{n:x}::1/128"          # inside self.ipv6
        self.ipv6_outside = f"2001:db8:{n:x}:1::1/128"     # same /48, other /64
        self.mac = "02-00-00-{:02x}-{:02x}-{:02x}".format(n >> 16 & 255, n >> 8 & 255, n & 255)
        self.supi = f"imsi-00101{n:010d}"
        self.gpsi = f"msisdn-467{n:010d}"
        self.dnn = f"dnn{n}.example"


def wait_until(predicate, timeout=15.0, what="condition", interval=0.02):
    """Polls `predicate` until it returns a true value (returned); fails the test with an
    AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def serving(sim):
    """The body of a fixture around a simulator of tests/peers (NrfSim, PcfSim, ...), used as
    `yield from serving(PcfSim())`: starts it, yields it to the test, then closes it and fails
    the test if the simulator saw a protocol violation."""
    yield sim.start()
    sim.close()
    assert not sim.violations, sim.violations


def metrics(server):
    """The ops endpoint's samples of a running bsfd: {'name{labels}': value}."""
    resp = server.ops.get("/metrics")
    assert resp.status_code == 200, resp.text
    samples = {}
    for line in resp.text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def binding(**members):
    """A valid PcfBinding; defaults for dnn, snssai and pcfFqdn. A member given as None is left out."""
    body = {"dnn": "internet", "snssai": dict(DEFAULT_SNSSAI), "pcfFqdn": PCF_FQDN}
    body.update(members)
    return {name: value for name, value in body.items() if value is not None}


def new_pcf_id():
    return str(uuid.uuid4())


# --- responses -----------------------------------------------------------------------------

def describe(resp):
    """One line for assertion messages."""
    return (f"{resp.request.method} {resp.request.url} -> {resp.status_code} "
            f"{dict(resp.headers)} {resp.text[:600]!r}")


def media_type(resp):
    return resp.headers.get("content-type", "").split(";")[0].strip().lower()


def assert_json(resp, status, *schemas):
    """An answer of `status` with a JSON body valid against each of `schemas`. Returns the body."""
    assert resp.status_code == status, describe(resp)
    assert media_type(resp) == "application/json", describe(resp)
    body = resp.json()
    for schema in schemas:
        openapi.validate(body, schema)
    return body


def assert_json_array(resp, schema):
    """A 200 whose JSON body is an array (possibly empty) of `schema` items. Returns it."""
    body = assert_json(resp, 200)
    assert isinstance(body, list), body
    for item in body:
        openapi.validate(item, schema)
    return body


def created_id(resp, location, what="binding"):
    """The id in the Location of the created `resp`: group 1 of `location` (a regex of the
    absolute URI)."""
    match = location.fullmatch(resp.headers.get("location", ""))
    assert match, f"Location is not an absolute {what} URI: {describe(resp)}"
    return match.group(1)


def assert_binding(resp, status):
    """A 2xx with a PcfBinding body: status, content-type, schema. Returns the body."""
    return assert_json(resp, status, "PcfBinding")


def assert_no_content(resp):
    assert resp.status_code == 204, describe(resp)
    assert resp.content == b"", describe(resp)


def assert_problem(resp, status, cause, param=None, schema="ProblemDetails"):
    """An error: status, problem+json, schema, status/cause/title/detail members and,
    with param, an invalidParams entry for it (a JSON pointer also matches its children).
    `cause` may be a tuple of acceptable causes where the contract leaves the choice open."""
    assert resp.status_code == status, describe(resp)
    assert media_type(resp) == "application/problem+json", describe(resp)
    body = resp.json()
    openapi.validate(body, schema)
    assert body.get("status") == status, body
    causes = cause if isinstance(cause, tuple) else (cause,)
    assert body.get("cause") in causes, body
    assert isinstance(body.get("title"), str) and body["title"], body
    assert isinstance(body.get("detail"), str) and body["detail"], body
    if param is not None:
        names = [entry["param"] for entry in body.get("invalidParams", [])]
        assert any(name == param or name.startswith(param + "/") for name in names), \
            f"no invalidParams entry for {param!r}: {body}"
    return body


def allowed_methods(resp):
    return {method.strip().upper() for method in resp.headers.get("allow", "").split(",") if method.strip()}


# --- operations ----------------------------------------------------------------------------

def post_binding(client, body, headers=None):
    return client.post("/pcfBindings", json=body, headers=headers)


def register(client, body, headers=None):
    """POST a (schema-valid) binding that must be accepted. Returns (binding id, stored binding)."""
    openapi.validate(body, "PcfBinding")
    resp = post_binding(client, body, headers)
    stored = assert_binding(resp, 201)
    return created_id(resp, LOCATION), stored


def location_id(resp):
    return created_id(resp, LOCATION)


def discover(client, **params):
    """GET /pcfBindings; dict values (snssai) are sent as compact JSON, URL-encoded.
    Use **{"supp-feat": "1"} for the hyphenated parameter."""
    query = {name: json.dumps(value, separators=(",", ":")) if isinstance(value, dict) else value
             for name, value in params.items()}
    return client.get("/pcfBindings", params=query)


def found(client, **params):
    """Discovery that must find a binding; returns it."""
    return assert_binding(discover(client, **params), 200)


def assert_not_found(client, **params):
    assert_no_content(discover(client, **params))


def delete(client, binding_id):
    return client.delete(f"/pcfBindings/{binding_id}")


def patch(client, binding_id, changes, content_type=MERGE_PATCH):
    return client.patch(f"/pcfBindings/{binding_id}", content=json.dumps(changes).encode(),
                        headers={"content-type": content_type})


def assert_gone(client, binding_id):
    """A binding that no longer exists: DELETE answers 404 (and so deletes nothing)."""
    assert_problem(delete(client, binding_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")


# --- TS 29.500 timestamps ------------------------------------------------------------------

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def sbi_time(when):
    """'Sun, 04 Aug 2019 08:49:37.845 GMT' for an aware datetime."""
    when = when.astimezone(datetime.timezone.utc)
    return (f"{_DAYS[when.weekday()]}, {when.day:02d} {_MONTHS[when.month - 1]} {when.year} "
            f"{when:%H:%M:%S}.{when.microsecond // 1000:03d} GMT")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


# --- raw HTTP/2 ----------------------------------------------------------------------------

@dataclass
class RawResponse:
    status: int = None
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    sent: int = 0            # body bytes the client put on the wire
    reset: bool = False      # the server reset the stream


def recv_before(sock, deadline):
    """The next bytes from `sock` before `deadline` (time.monotonic()): b"" once the peer has
    closed or reset the connection, None when the deadline passed first."""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            return sock.recv(65536)
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return b""
    return None


def h2_request(port, method, path, headers, body=b"", end_stream=True, timeout=10.0):
    """One request on a fresh h2c (prior knowledge) connection, driven by the h2 state machine.

    Sends as much of `body` as the initial flow-control windows allow and never waits for
    WINDOW_UPDATE; the stream is ended only if `end_stream` and the whole body fitted. Then
    reads until the response is complete, the stream is reset or `timeout` passes.
    """
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True,
                                                                header_encoding="utf-8"))
    result = RawResponse()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        conn.initiate_connection()
        stream = conn.get_next_available_stream_id()
        request_headers = [(":method", method), (":scheme", "http"),
                           (":authority", f"127.0.0.1:{port}"), (":path", path)] + list(headers)
        conn.send_headers(stream, request_headers, end_stream=end_stream and not body)
        while result.sent < len(body):
            room = min(conn.local_flow_control_window(stream), conn.max_outbound_frame_size)
            if room <= 0:
                break
            chunk = body[result.sent:result.sent + room]
            result.sent += len(chunk)
            conn.send_data(stream, chunk, end_stream=end_stream and result.sent == len(body))
        sock.sendall(conn.data_to_send())

        deadline = time.monotonic() + timeout
        done = False
        while not done:
            data = recv_before(sock, deadline)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                    result.headers = dict(event.headers)
                    result.status = int(result.headers.pop(":status"))
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
                    result.body += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, stream)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    done = True
                elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
                    result.reset = done = True
                elif isinstance(event, h2.events.ConnectionTerminated):
                    done = True
            pending = conn.data_to_send()
            if pending:
                sock.sendall(pending)
    return result


def ipv6_loopback():
    """True when this host can bind ::1 (a test of IPv6 listeners skips without it)."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def assert_rebuild_matches(server, out_dir):
    """`bsfctl rebuild` of server's log into the new directory out_dir prints the live store's
    digest, and the rebuilt store has it."""
    from conftest import run_bsfctl
    live = server.digest()
    out_dir.mkdir()
    printed = re.findall(r"[0-9a-f]{64}", server.bsfctl("rebuild", "--out", out_dir).stdout)
    assert printed and printed[-1] == live
    assert run_bsfctl(out_dir, "digest").stdout.strip() == live
