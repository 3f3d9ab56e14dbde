"""Errors of the SBI gateway: 405 + Allow, 404 for unknown paths, 411, 413 (also without
reading the body), 414, 415, malformed bodies and a wrong type or format for every
PcfBinding member. Every error must leave the store unchanged."""

import json

import pytest

import openapi
from support import (MERGE_PATCH, Ue, allowed_methods, assert_binding, assert_not_found,
                     assert_problem, binding, delete, describe, found, h2_request, media_type,
                     patch, post_binding, register)

MAX_BODY = 16384


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    return module_bsfd_factory({"sbi.max_body_bytes": MAX_BODY})


def post_raw(client, content, content_type="application/json"):
    headers = {"content-type": content_type} if content_type else {}
    return client.post("/pcfBindings", content=content, headers=headers)


def padded(body, size):
    """`body` as JSON, padded with trailing whitespace to exactly `size` bytes."""
    text = json.dumps(body).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


# --- 405 / 404 ------------------------------------------------------------------------------

@pytest.mark.parametrize("method, target, allowed", [
    ("PUT", "collection", {"GET", "POST"}),
    ("DELETE", "collection", {"GET", "POST"}),
    ("PATCH", "collection", {"GET", "POST"}),
    ("OPTIONS", "collection", {"GET", "POST"}),
    ("HEAD", "collection", {"GET", "POST"}),
    ("GET", "binding", {"DELETE", "PATCH"}),
    ("PUT", "binding", {"DELETE", "PATCH"}),
    ("POST", "binding", {"DELETE", "PATCH"}),
    ("OPTIONS", "binding", {"DELETE", "PATCH"}),
    ("HEAD", "binding", {"DELETE", "PATCH"}),
])
def test_method_not_allowed(client, method, target, allowed):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    binding_id, _ = register(client, body)
    path = "/pcfBindings" if target == "collection" else f"/pcfBindings/{binding_id}"
    content_type = MERGE_PATCH if method == "PATCH" else "application/json"
    if method in ("PUT", "POST", "PATCH"):
        resp = client.request(method, path, content=json.dumps(body).encode(),
                              headers={"content-type": content_type})
    else:
        resp = client.request(method, path)
    assert resp.status_code == 405, describe(resp)
    assert allowed_methods(resp) == allowed, describe(resp)
    if method != "HEAD":
        assert_problem(resp, 405, "UNSPECIFIED_MSG_FAILURE")
    assert found(client, ipv4Addr=ue.ipv4) == body


@pytest.mark.parametrize("path", [
    "/",
    "/nbsf-management/v1",
    "/nbsf-management/v1/",
    "/nbsf-management/v1/pcfBinding",
    "/nbsf-management/v1/PCFBINDINGS",
    "/nbsf-management/v2/pcfBindings",
    "/nbsf-management/v1/pcfBindings/0123456789abcdef0123456789abcdef/extra",
    "/unknown/v1/pcfBindings",
])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_unknown_path(bsfd, client, path, method):
    url = f"http://127.0.0.1:{bsfd.sbi_port}{path}"
    content = json.dumps(binding(ipv4Addr=Ue().ipv4)).encode() if method == "POST" else None
    resp = client.request(method, url, content=content, headers={"content-type": "application/json"})
    assert_problem(resp, 404, "RESOURCE_URI_STRUCTURE_NOT_FOUND")


# --- 411 / 413 / 414 / 415 ------------------------------------------------------------------

def test_post_without_content_length_is_read_to_the_end(bsfd, client):
    """A body of unknown length (DATA until END_STREAM) is legal HTTP/2 (RFC 9113 §8.1.1)."""
    ue = Ue()
    count = bsfd.count()
    body = binding(ipv4Addr=ue.ipv4)
    resp = client.post("/pcfBindings", content=iter([json.dumps(body).encode()]),
                       headers={"content-type": "application/json"})
    assert "content-length" not in resp.request.headers
    assert assert_binding(resp, 201) == body
    assert bsfd.count() == count + 1


def test_body_of_exactly_the_limit_is_accepted(client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    resp = post_raw(client, padded(body, MAX_BODY))
    assert assert_binding(resp, 201) == body


def test_body_one_byte_over_the_limit(client):
    ue = Ue()
    resp = post_raw(client, padded(binding(ipv4Addr=ue.ipv4), MAX_BODY + 1))
    assert_problem(resp, 413, "UNSPECIFIED_MSG_FAILURE")
    assert_not_found(client, ipv4Addr=ue.ipv4)


@pytest.mark.parametrize("send_window", [False, True], ids=["headers-only", "first-window"])
def test_huge_body_is_refused_without_being_read(bsfd, client, send_window):
    """content-length 100 MB: the 413 must come back although the client never sends
    more than the initial flow-control window (and, here, not even that)."""
    total = 100_000_000
    first = b'{"dnn": "' + b"a" * 70_000 if send_window else b""
    resp = h2_request(bsfd.sbi_port, "POST", "/nbsf-management/v1/pcfBindings",
                      [("content-type", "application/json"), ("content-length", str(total))],
                      body=first, end_stream=False, timeout=5.0)
    assert resp.status == 413, resp
    assert resp.sent < total
    assert resp.headers.get("content-type", "").startswith("application/problem+json"), resp
    if resp.body:
        problem = json.loads(resp.body)
        openapi.validate(problem, "ProblemDetails")
        assert problem["status"] == 413 and problem["cause"] == "UNSPECIFIED_MSG_FAILURE", problem
    # the server is still fine afterwards
    assert_problem(delete(client, "0" * 32), 404, "RESOURCE_CONTEXT_NOT_FOUND")


def test_uri_longer_than_the_limit(bsfd_factory):
    server = bsfd_factory({"sbi.max_uri_bytes": 1024})
    base = "/nbsf-management/v1/pcfBindings?ipv4Addr=10.0.0.1&fooBar="
    short = base + "x" * (1000 - len(base))
    assert_problem(server.client.get(f"http://127.0.0.1:{server.sbi_port}{short}"), 400,
                   "INVALID_QUERY_PARAM")
    long = base + "x" * 2000
    assert_problem(server.client.get(f"http://127.0.0.1:{server.sbi_port}{long}"), 414,
                   "UNSPECIFIED_MSG_FAILURE")


@pytest.mark.parametrize("content_type", ["text/plain", MERGE_PATCH, "application/jsonx", None])
def test_post_needs_application_json(bsfd, client, content_type):
    ue = Ue()
    count = bsfd.count()
    resp = post_raw(client, json.dumps(binding(ipv4Addr=ue.ipv4)).encode(), content_type)
    assert_problem(resp, 415, "INVALID_MSG_FORMAT")
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert bsfd.count() == count


def test_content_type_is_checked_before_the_body(client):
    assert_problem(post_raw(client, b"{", "text/plain"), 415, "INVALID_MSG_FORMAT")


# --- malformed bodies -----------------------------------------------------------------------

def _valid_text(ue):
    return json.dumps(binding(ipv4Addr=ue.ipv4))


MALFORMED = {
    "empty": lambda ue: b"",
    "not-json": lambda ue: b"hello",
    "truncated": lambda ue: _valid_text(ue)[:-1].encode(),
    "trailing-garbage": lambda ue: _valid_text(ue).encode() + b" x",
    "two-objects": lambda ue: _valid_text(ue).encode() * 2,
    "array": lambda ue: f"[{_valid_text(ue)}]".encode(),
    "string": lambda ue: b'"dnn"',
    "number": lambda ue: b"42",
    "null": lambda ue: b"null",
    "single-quotes": lambda ue: _valid_text(ue).replace('"', "'").encode(),
    "trailing-comma": lambda ue: _valid_text(ue)[:-1].encode() + b",}",
    "duplicate-key": lambda ue: _valid_text(ue)[:-1].encode() + b', "dnn": "other"}',
    "duplicate-nested-key": lambda ue: _valid_text(ue)[:-1].encode() + b', "paraCom": {"dnn": "a", "dnn": "b"}}',
    "invalid-utf8-value": lambda ue: _valid_text(ue)[:-1].encode() + b', "supi": "imsi-\xff\xfe"}',
    "invalid-utf8-key": lambda ue: _valid_text(ue)[:-1].encode() + b', "\xc3\x28": 1}',
    "overlong-utf8": lambda ue: _valid_text(ue)[:-1].encode() + b', "gpsi": "\xc0\xaf"}',
    "deep-nesting": lambda ue: (_valid_text(ue)[:-1] + ', "vendorData": ' + "[" * 5000 + "]" * 5000 + "}").encode(),
    "deep-nesting-objects": lambda ue: (_valid_text(ue)[:-1] + ', "vendorData": ' + '{"a":' * 1500 + "1"
                                        + "}" * 1500 + "}").encode(),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_body(bsfd, client, kind):
    ue = Ue()
    content = MALFORMED[kind](ue)
    assert len(content) <= MAX_BODY
    count = bsfd.count()
    assert_problem(post_raw(client, content), 400, "INVALID_MSG_FORMAT")
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert bsfd.count() == count


# --- a wrong type or format for every member -------------------------------------------------

def _base(ue, address):
    body = {"dnn": "internet", "snssai": {"sst": 1, "sd": "000001"}, "pcfFqdn": "pcf1.example.com",
            "pcfIpEndPoints": [{"ipv4Address": "192.0.2.1", "port": 8080}]}
    body.update({"ipv4": {"ipv4Addr": ue.ipv4},
                 "ipv6": {"ipv4Addr": ue.ipv4, "ipv6Prefix": ue.ipv6},
                 "only-ipv6": {"ipv6Prefix": ue.ipv6},
                 "mac": {"macAddr48": ue.mac}}[address])
    return body


M, O = "MANDATORY_IE_INCORRECT", "OPTIONAL_IE_INCORRECT"
WRONG = [
    # member, wrong value, base (which UE address is there), cause
    ("dnn", 5, "ipv4", M), ("dnn", ["internet"], "ipv4", M), ("dnn", None, "ipv4", M),
    ("snssai", "1-000001", "ipv4", M), ("snssai", {"sst": "1"}, "ipv4", M),
    ("snssai", {"sst": 256}, "ipv4", M), ("snssai", {"sst": 1, "sd": "00001G"}, "ipv4", M),
    ("snssai", {"sd": "000001"}, "ipv4", M),
    ("ipv4Addr", 167772161, "ipv4", M), ("ipv4Addr", "10.0.0.256", "ipv4", M), ("ipv4Addr", "10.0.0", "ipv4", M),
    ("ipv6Prefix", 5, "only-ipv6", M), ("ipv6Prefix", "2001:db8::1", "only-ipv6", M),
    ("ipv6Prefix", "2001:db8::/129", "only-ipv6", M),
    ("macAddr48", 5, "mac", M), ("macAddr48", "02:00:00:00:00:01", "mac", M),
    ("supi", 5, "ipv4", O), ("supi", "", "ipv4", O), ("supi", None, "ipv4", O),
    ("gpsi", 5, "ipv4", O), ("gpsi", "", "ipv4", O),
    # ipv4Addr satisfies the "one UE address" rule here, so ipv6Prefix reads as optional;
    # the contract's wording allows both readings (see README, "open points")
    ("ipv6Prefix", "2001:db8::1", "ipv4", (M, O)),
    ("addIpv6Prefixes", "2001:db8::/64", "ipv6", O), ("addIpv6Prefixes", [], "ipv6", O),
    ("addIpv6Prefixes", ["2001:db8::1"], "ipv6", O),
    ("ipDomain", 5, "ipv4", O),
    ("addMacAddrs", "02-00-00-00-00-01", "mac", O), ("addMacAddrs", [5], "mac", O),
    ("pcfFqdn", 5, "ipv4", O), ("pcfFqdn", "nodot", "ipv4", O),
    ("pcfIpEndPoints", "192.0.2.1", "ipv4", O), ("pcfIpEndPoints", [], "ipv4", O),
    ("pcfIpEndPoints", [{"ipv4Address": "192.0.2"}], "ipv4", O),
    ("pcfIpEndPoints", [{"ipv4Address": "192.0.2.1", "port": "80"}], "ipv4", O),
    ("pcfDiamHost", 5, "ipv4", O), ("pcfDiamRealm", "bad realm", "ipv4", O),
    ("pcfSmFqdn", 5, "ipv4", O), ("pcfSmFqdn", "x", "ipv4", O),
    ("pcfSmIpEndPoints", {}, "ipv4", O), ("pcfSmIpEndPoints", [], "ipv4", O),
    ("suppFeat", 7, "ipv4", O), ("suppFeat", "xyz", "ipv4", O),
    ("pcfId", 5, "ipv4", O), ("pcfId", "not-a-uuid", "ipv4", O),
    ("pcfSetId", 5, "ipv4", O),
    ("recoveryTime", 5, "ipv4", O), ("recoveryTime", "yesterday", "ipv4", O),
    ("paraCom", "x", "ipv4", O), ("paraCom", {"supi": 5}, "ipv4", O),
    ("paraCom", {"snssai": {"sst": 999}}, "ipv4", O),
    ("bindLevel", 1, "ipv4", O),
    ("ipv4FrameRouteList", "10.0.0.0/8", "ipv4", O), ("ipv4FrameRouteList", ["10.0.0.0"], "ipv4", O),
    ("ipv4FrameRouteList", [], "ipv4", O),
    ("ipv6FrameRouteList", "2001:db8::/32", "ipv4", O), ("ipv6FrameRouteList", ["2001:db8::1"], "ipv4", O),
]


@pytest.mark.parametrize("member, value, base, cause", WRONG,
                         ids=[f"{w[0]}={json.dumps(w[1])}/{w[2]}" for w in WRONG])
def test_wrong_type_or_format(bsfd, client, member, value, base, cause):
    ue = Ue()
    body = _base(ue, base)
    if member == "pcfDiamHost":
        body["pcfDiamRealm"] = "diameter.example.com"
    if member == "pcfDiamRealm":
        body["pcfDiamHost"] = "pcf1.diameter.example.com"
    body[member] = value
    assert openapi.errors(body, "PcfBinding"), "the test body should break the schema"
    count = bsfd.count()
    assert_problem(post_binding(client, body), 400, cause, f"/{member}")
    assert bsfd.count() == count
    for query in ({"ipv4Addr": ue.ipv4}, {"ipv6Prefix": ue.ipv6_addr}, {"macAddr48": ue.mac}):
        assert_not_found(client, **query)


def test_every_member_has_a_wrong_value_case():
    assert set(openapi.component("PcfBinding")["properties"]) == {case[0] for case in WRONG}


# --- query parameters where none are taken -------------------------------------------------------

def test_query_on_post(bsfd, client):
    ue = Ue()
    resp = client.post("/pcfBindings?fooBar=1", json=binding(ipv4Addr=ue.ipv4))
    assert_problem(resp, 400, "INVALID_QUERY_PARAM", "query fooBar")
    assert_not_found(client, ipv4Addr=ue.ipv4)


def test_query_on_delete_and_patch(client):
    ue, moved = Ue(), Ue()
    body = binding(ipv4Addr=ue.ipv4)
    binding_id, _ = register(client, body)
    assert_problem(client.delete(f"/pcfBindings/{binding_id}?force=1"), 400, "INVALID_QUERY_PARAM",
                   "query force")
    resp = client.patch(f"/pcfBindings/{binding_id}?x=1", content=json.dumps({"ipv4Addr": moved.ipv4}).encode(),
                        headers={"content-type": MERGE_PATCH})
    assert_problem(resp, 400, "INVALID_QUERY_PARAM", "query x")
    assert found(client, ipv4Addr=ue.ipv4) == body
    assert media_type(patch(client, binding_id, {})) == "application/json"
