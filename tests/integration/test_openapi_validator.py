"""Self-test of openapi.py: it must accept good bodies and reject bad ones.

Needs no server, so it shows the validator works before bsfd exists.
"""

import pytest

import openapi

FULL_BINDING = {
    "supi": "imsi-001010000000001",
    "gpsi": "msisdn-46700000001",
    "ipv4Addr": "10.0.0.1",
    "ipDomain": "domain-a",
    "ipv6Prefix": "2001:db8:1::/64",
    "addIpv6Prefixes": ["2001:db8:2::/64"],
    "dnn": "internet",
    "snssai": {"sst": 1, "sd": "00000A"},
    "pcfFqdn": "pcf1.example.com",
    "pcfIpEndPoints": [{"ipv4Address": "192.0.2.1", "port": 8080, "transport": "TCP"}],
    "pcfDiamHost": "pcf1.diameter.example.com",
    "pcfDiamRealm": "diameter.example.com",
    "pcfSmFqdn": "pcf-sm.example.com",
    "pcfSmIpEndPoints": [{"ipv6Address": "2001:db8::5", "port": 80}],
    "suppFeat": "7",
    "pcfId": "4a8b5f0e-8d2c-4e6f-9a1b-2c3d4e5f6a7b",
    "pcfSetId": "setxyz.pcfset.5gc.mnc012.mcc345",
    "recoveryTime": "2024-05-01T10:20:30.123Z",
    "paraCom": {"supi": "imsi-001010000000001", "dnn": "internet", "snssai": {"sst": 1}},
    "bindLevel": "NF_INSTANCE",
    "ipv4FrameRouteList": ["10.10.0.0/16"],
    "ipv6FrameRouteList": ["2001:db8:ff::/48"],
}

MAC_BINDING = {
    "dnn": "ethernet",
    "snssai": {"sst": 2},
    "macAddr48": "02-00-00-AB-cd-01",
    "addMacAddrs": ["02-00-00-00-00-02"],
    "pcfFqdn": "pcf1.example.com",
}


def with_member(body, name, value):
    changed = dict(body)
    changed[name] = value
    return changed


def without_member(body, name):
    return {key: value for key, value in body.items() if key != name}


@pytest.mark.parametrize("body", [FULL_BINDING, MAC_BINDING])
def test_good_bindings_are_accepted(body):
    assert openapi.errors(body, "PcfBinding") == []
    openapi.validate(body, "PcfBinding")


@pytest.mark.parametrize("name, value", [
    ("ipv4Addr", "10.0.0.256"),
    ("ipv4Addr", "10.0.0.1\n"),            # ECMA '$' semantics: no trailing newline
    ("ipv4Addr", None),                     # not nullable in PcfBinding
    ("ipv6Prefix", "2001:db8::1"),          # no prefix length
    ("ipv6Prefix", "2001:DB8::/64"),        # 29.571 pattern: lowercase only
    ("addIpv6Prefixes", []),                # minItems 1
    ("macAddr48", "02:00:00:00:00:01"),
    ("addMacAddrs", ["zz-00-00-00-00-01"]),
    ("dnn", 5),
    ("snssai", {"sst": 256}),
    ("snssai", {"sd": "000001"}),           # sst required
    ("snssai", {"sst": 1, "sd": "00001"}),
    ("supi", ""),
    ("gpsi", ""),
    ("pcfFqdn", "nodot"),
    ("pcfIpEndPoints", [{"ipv4Address": "192.0.2.1", "ipv6Address": "2001:db8::1"}]),  # TS 29.510
    ("pcfIpEndPoints", [{"ipv4Address": "192.0.2.1", "port": 70000}]),
    ("pcfDiamHost", "bad host"),
    ("pcfSmIpEndPoints", []),
    ("suppFeat", "xyz"),
    ("pcfId", "not-a-uuid"),                # format: uuid
    ("recoveryTime", "2024-05-01 10:20:30"),  # format: date-time
    ("recoveryTime", "2024-13-01T10:20:30Z"),
    ("paraCom", {"supi": 5}),
    ("bindLevel", 3),
    ("ipv4FrameRouteList", ["10.10.0.0"]),  # mask required
    ("ipv6FrameRouteList", ["2001:db8::1"]),
])
def test_bad_members_are_rejected(name, value):
    bad = with_member(FULL_BINDING, name, value)
    assert openapi.errors(bad, "PcfBinding"), f"{name}={value!r} should be invalid"
    with pytest.raises(AssertionError):
        openapi.validate(bad, "PcfBinding")


@pytest.mark.parametrize("name", ["dnn", "snssai"])
def test_required_members(name):
    assert openapi.errors(without_member(FULL_BINDING, name), "PcfBinding")


def test_unknown_binding_level_is_forward_compatible():
    assert openapi.errors(with_member(FULL_BINDING, "bindLevel", "FUTURE_LEVEL"), "PcfBinding") == []


@pytest.mark.parametrize("value", ["2024-05-01T10:20:30Z", "2024-05-01T10:20:30.5+02:00",
                                   "2024-05-01t10:20:30-00:30"])
def test_date_time_format_accepts_rfc3339(value):
    assert openapi.errors(with_member(FULL_BINDING, "recoveryTime", value), "PcfBinding") == []


def test_nullable_members_of_the_patch_accept_null():
    patch = {"ipv4Addr": None, "ipDomain": None, "ipv6Prefix": None, "addIpv6Prefixes": None,
             "macAddr48": None, "addMacAddrs": None}
    assert openapi.errors(patch, "PcfBindingPatch") == []


def test_nullable_does_not_relax_the_type():
    assert openapi.errors({"ipv4Addr": "10.0.0.300"}, "PcfBindingPatch")
    assert openapi.errors({"pcfFqdn": None}, "PcfBindingPatch")  # not nullable


def test_problem_details():
    good = {"status": 400, "cause": "MANDATORY_IE_MISSING", "title": "Bad Request",
            "detail": "dnn is missing", "invalidParams": [{"param": "/dnn", "reason": "missing"}]}
    assert openapi.errors(good, "ProblemDetails") == []
    assert openapi.errors(with_member(good, "invalidParams", [{"reason": "x"}]), "ProblemDetails")
    assert openapi.errors(with_member(good, "invalidParams", []), "ProblemDetails")
    assert openapi.errors(with_member(good, "status", "400"), "ProblemDetails")


def test_ext_problem_details_combines_problem_details_and_binding_resp():
    good = {"status": 403, "cause": "EXISTING_BINDING_INFO_FOUND", "title": "Forbidden",
            "detail": "x", "pcfSmFqdn": "pcf-sm.example.com",
            "pcfSmIpEndPoints": [{"ipv4Address": "192.0.2.7"}]}
    assert openapi.errors(good, "ExtProblemDetails") == []
    assert openapi.errors(with_member(good, "pcfSmFqdn", "x"), "ExtProblemDetails")
    assert openapi.errors(with_member(good, "status", None), "ExtProblemDetails")


def test_schema_lookup():
    assert openapi.validator("ProblemDetails") is openapi.validator("ProblemDetails")
    with pytest.raises(KeyError):
        openapi.validator("NoSuchSchema")
    with pytest.raises(KeyError):
        openapi.validator("PcfBinding", "TS29571_CommonData.yaml")


def test_to_json_schema_rewrites_nullable_and_anchors():
    converted = openapi.to_json_schema({"type": "string", "pattern": "^a$", "nullable": True})
    assert converted == {"anyOf": [{"type": "null"}, {"type": "string", "pattern": "^a\\Z"}]}
    assert openapi.to_json_schema({"type": "string", "nullable": False}) == {"type": "string"}
