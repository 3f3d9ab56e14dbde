"""IPv6 semantics of registrations and discovery: canonical prefixes (host bits zeroed, no
leading zero in the length), the shortest accepted prefix (bindings.ipv6_min_prefix_len,
/0 never), longest-prefix match, and RFC 5952 text without the mixed IPv4 form (the TS 29.571
Ipv6Prefix / Ipv6Addr patterns)."""

import re
import subprocess

import pytest
import yaml

from conftest import BSFD, REPO
from support import (Ue, assert_binding, assert_no_content, assert_not_found,
                     assert_problem, binding, delete, discover, found, location_id, patch,
                     post_binding,
                     register)

SPEC = REPO / "spec" / "3gpp" / "TS29571_CommonData.yaml"


def spec_patterns(schema):
    """The regular expressions of a TS 29.571 string type (all must match)."""
    doc = yaml.safe_load(SPEC.read_text())
    return [re.compile(p["pattern"]) for p in doc["components"]["schemas"][schema]["allOf"]]


def assert_pattern(value, schema):
    for pattern in spec_patterns(schema):
        assert pattern.search(value), f"{value!r} does not match {schema}: {pattern.pattern}"


@pytest.fixture(scope="module")
def server(module_bsfd_factory):
    """A server of its own: its /32 registrations would catch other modules' queries."""
    return module_bsfd_factory()


@pytest.mark.parametrize("wide_first", [True, False])
def test_the_most_specific_prefix_wins_whatever_the_order(server, wide_first):
    n = Ue().n
    wide = binding(ipv6Prefix=f"3fff:{n:x}::/32", pcfFqdn="wide.example.com")
    specific = binding(ipv6Prefix=f"3fff:{n:x}:1:2::/64", pcfFqdn="specific.example.com")
    for body in ((wide, specific) if wide_first else (specific, wide)):
        register(server.client, body)
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:1:2::77/128") == specific
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:1:2::/64") == specific
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:1:3::77/128") == wide
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:1::/48") == wide
    # A filter the /64 fails falls back to the /32.
    other_dnn = binding(ipv6Prefix=f"3fff:{n:x}:9::/48", dnn="other", pcfFqdn="o.example.com")
    register(server.client, other_dnn)
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:9::1/128", dnn="internet") == wide


def test_framed_routes_and_additional_prefixes_are_matched_by_length(server):
    n = Ue().n
    holder = binding(ipv6Prefix=f"3fff:{n:x}:1::/48",
                     addIpv6Prefixes=[f"3fff:{n:x}:2::/56"],
                     ipv6FrameRouteList=[f"3fff:{n:x}:3:4::/64"], pcfFqdn="h.example.com")
    finer = binding(ipv6Prefix=f"3fff:{n:x}:2:0:1::/80", pcfFqdn="f.example.com")
    register(server.client, finer)
    register(server.client, holder)
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:2:0:1::9/128") == finer
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:2:0:2::9/128") == holder
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:3:4::9/128") == holder


def test_equal_lengths_are_the_only_multiple_matches(bsfd_factory):
    """With discovery.multiple_match=reject, a /32 and a /64 around the query are not
    ambiguous; two /64s are."""
    server = bsfd_factory({"discovery.multiple_match": "reject"})
    n = Ue().n
    register(server.client, binding(ipv6Prefix=f"3fff:{n:x}::/32", supi="imsi-001010000000001"))
    register(server.client, binding(ipv6Prefix=f"3fff:{n:x}:1:2::/64",
                                    supi="imsi-001010000000002"))
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:1:2::1/128")["supi"] == \
        "imsi-001010000000002"
    register(server.client, binding(ipv6Prefix=f"3fff:{n:x}:1:2::/64",
                                    supi="imsi-001010000000003"))
    assert_problem(discover(server.client, ipv6Prefix=f"3fff:{n:x}:1:2::1/128"), 400,
                   "MULTIPLE_BINDING_INFO_FOUND")


def test_prefixes_are_stored_canonical(server):
    n = Ue().n
    body = binding(ipv6Prefix=f"3fff:{n:x}:0:1:2:3:4:5/64",
                   addIpv6Prefixes=[f"3FFF:{n:x}:0:2:0:0:0:1/64"],
                   ipv6FrameRouteList=[f"3fff:{n:x}:ff::1/48"])
    # Upper case is outside the pattern but RFC 4291 text: accepted (post, not register).
    resp = post_binding(server.client, body)
    stored = assert_binding(resp, 201)
    binding_id = location_id(resp)
    canonical = {"ipv6Prefix": f"3fff:{n:x}:0:1::/64",
                 "addIpv6Prefixes": [f"3fff:{n:x}:0:2::/64"],
                 "ipv6FrameRouteList": [f"3fff:{n:x}:ff::/48"]}
    for name, value in canonical.items():
        assert stored[name] == value, stored
        assert found(server.client, ipv6Prefix=f"3fff:{n:x}:0:1::9/128")[name] == value
    resp = patch(server.client, binding_id, {"ipv6Prefix": f"3fff:{n:x}:0:7::abcd/64"})
    assert assert_binding(resp, 200)["ipv6Prefix"] == f"3fff:{n:x}:0:7::/64"
    # The canonical form is what collision detection and the reader compare.
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:0:7::/64")["ipv6Prefix"] == \
        f"3fff:{n:x}:0:7::/64"


def test_ipv4_mapped_and_compatible_prefixes_are_returned_in_hex(server):
    """RFC 5952 §5's mixed form is not allowed by TS 29.571's Ipv6Prefix / Ipv6Addr."""
    cases = {"::ffff:a00:1/128": "::ffff:a00:1/128", "::ffff:10.0.0.2/128": "::ffff:a00:2/128",
             "::a00:3/128": "::a00:3/128", "::10.0.0.4/128": "::a00:4/128",
             "64:ff9b::192.0.2.33/128": "64:ff9b::c000:221/128"}
    for sent, expected in cases.items():
        body = binding(ipv6Prefix=sent,
                       pcfIpEndPoints=[{"ipv6Address": "::ffff:192.0.2.1", "port": 8080}])
        resp = post_binding(server.client, body)  # the mixed form is outside the pattern
        stored = assert_binding(resp, 201)
        binding_id = location_id(resp)
        assert stored["ipv6Prefix"] == expected, stored
        assert stored["pcfIpEndPoints"][0]["ipv6Address"] == "::ffff:c000:201", stored
        answer = found(server.client, ipv6Prefix=expected)
        assert answer["ipv6Prefix"] == expected, answer
        assert_pattern(answer["ipv6Prefix"], "Ipv6Prefix")
        assert_pattern(answer["pcfIpEndPoints"][0]["ipv6Address"], "Ipv6Addr")
        assert_no_content(delete(server.client, binding_id))


@pytest.mark.parametrize("member,value,pointer", [
    ("ipv6Prefix", "3fff:1:2::/064", "/ipv6Prefix"),
    ("ipv6Prefix", "3fff:1:2::/00", "/ipv6Prefix"),
    ("addIpv6Prefixes", ["3fff:1:3::/64", "3fff:1:2::/048"], "/addIpv6Prefixes/1"),
    ("ipv6FrameRouteList", ["3fff:1:2::/0128"], "/ipv6FrameRouteList/0"),
])
def test_a_length_with_a_leading_zero_is_refused(server, member, value, pointer):
    n = Ue().n
    value = [v.replace("3fff:1:", f"3fff:{n:x}:") for v in value] if isinstance(value, list) \
        else value.replace("3fff:1:", f"3fff:{n:x}:")
    members = {"ipv6Prefix": f"3fff:{n:x}:1::/64", member: value}
    resp = post_binding(server.client, binding(**members))
    cause = "MANDATORY_IE_INCORRECT" if member == "ipv6Prefix" else "OPTIONAL_IE_INCORRECT"
    assert_problem(resp, 400, cause, param=pointer)
    assert_not_found(server.client, ipv6Prefix=f"3fff:{n:x}:1::1/128")
    assert_problem(discover(server.client, ipv6Prefix=f"3fff:{n:x}:1::1/0128"), 400,
                   ("INVALID_QUERY_PARAM", "MANDATORY_QUERY_PARAM_INCORRECT"))


@pytest.mark.parametrize("member,value,pointer", [
    ("ipv6Prefix", "::/0", "/ipv6Prefix"),
    ("ipv6Prefix", "3ffe::/31", "/ipv6Prefix"),
    ("addIpv6Prefixes", ["3fff:N:2::/64", "3000::/8"], "/addIpv6Prefixes/1"),
    ("ipv6FrameRouteList", ["::/0"], "/ipv6FrameRouteList/0"),
    ("ipv6FrameRouteList", ["3fff:N:2::/64", "3fff::/16"], "/ipv6FrameRouteList/1"),
])
def test_prefixes_shorter_than_the_minimum_are_refused(server, member, value, pointer):
    n = Ue().n
    if isinstance(value, list):
        value = [v.replace(":N:", f":{n:x}:") for v in value]
    members = {"ipv6Prefix": f"3fff:{n:x}:1::/64", member: value}
    resp = post_binding(server.client, binding(**members))
    cause = "MANDATORY_IE_INCORRECT" if member == "ipv6Prefix" else "OPTIONAL_IE_INCORRECT"
    body = assert_problem(resp, 400, cause, param=pointer)
    assert "/32" in body["detail"], body
    assert_not_found(server.client, ipv6Prefix=f"3fff:{n:x}:1::1/128")


def test_an_update_to_a_short_prefix_is_refused_and_changes_nothing(server):
    n = Ue().n
    binding_id, stored = register(server.client, binding(ipv6Prefix=f"3fff:{n:x}:5::/64"))
    for changes, pointer in (({"ipv6Prefix": "::/0"}, "/ipv6Prefix"),
                             ({"addIpv6Prefixes": ["3fff::/20"]}, "/addIpv6Prefixes/0")):
        resp = patch(server.client, binding_id, changes)
        assert_problem(resp, 400, ("MANDATORY_IE_INCORRECT", "OPTIONAL_IE_INCORRECT"),
                       param=pointer)
    assert found(server.client, ipv6Prefix=f"3fff:{n:x}:5::1/128") == stored
    assert_not_found(server.client, ipv6Prefix=f"3fff:{n + 1:x}:5::1/128")


def test_the_minimum_is_configurable(bsfd_factory):
    server = bsfd_factory({"bindings.ipv6_min_prefix_len": 56})
    resp = post_binding(server.client, binding(ipv6Prefix="3fff:3::/48"))
    body = assert_problem(resp, 400, "MANDATORY_IE_INCORRECT", param="/ipv6Prefix")
    assert "/56" in body["detail"], body
    register(server.client, binding(ipv6Prefix="3fff:3:0:100::/56"))
    assert found(server.client, ipv6Prefix="3fff:3:0:1ff::1/128")["ipv6Prefix"] == \
        "3fff:3:0:100::/56"
    # /1 is the most permissive setting: every length but /0.
    loose = bsfd_factory({"bindings.ipv6_min_prefix_len": 1})
    register(loose.client, binding(ipv6Prefix="8000::/1"))
    assert_problem(post_binding(loose.client, binding(ipv6Prefix="::/0")), 400,
                   "MANDATORY_IE_INCORRECT", param="/ipv6Prefix")


@pytest.mark.parametrize("value", ["0", "129", "-1", "64x"])
def test_an_out_of_range_minimum_stops_bsfd(tmp_path, value):
    done = subprocess.run([str(BSFD), "--set", f"store.path={tmp_path}",
                           "--set", f"bindings.ipv6_min_prefix_len={value}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, done
    assert "bindings.ipv6_min_prefix_len" in done.stderr and "1..128" in done.stderr, done.stderr
