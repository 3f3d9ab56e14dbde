"""GET /pcfBindings: address matching (IPv4 + ipDomain, IPv6 containment, MAC), the
narrowing filters, 204, multiple matches (most_recent / reject) and query errors."""

import pytest

from support import (Ue, assert_binding, assert_no_content, assert_not_found, assert_problem,
                     binding, delete, discover, found, new_pcf_id, patch, register)


def test_unknown_address_gives_204_without_body(client):
    assert_no_content(discover(client, ipv4Addr=Ue().ipv4))


def test_ipv4_with_ip_domain(client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4, ipDomain="dom-a")
    register(client, body)
    assert found(client, ipv4Addr=ue.ipv4) == body
    assert found(client, ipv4Addr=ue.ipv4, ipDomain="dom-a") == body
    assert_not_found(client, ipv4Addr=ue.ipv4, ipDomain="dom-b")


def test_same_ipv4_in_two_domains_is_told_apart_by_ip_domain(client):
    ue, other = Ue(), Ue()
    in_a = binding(ipv4Addr=ue.ipv4, ipDomain="dom-a", supi=ue.supi)
    in_b = binding(ipv4Addr=ue.ipv4, ipDomain="dom-b", supi=other.supi)
    register(client, in_a)
    register(client, in_b)
    assert found(client, ipv4Addr=ue.ipv4, ipDomain="dom-a") == in_a
    assert found(client, ipv4Addr=ue.ipv4, ipDomain="dom-b") == in_b


def test_ip_domain_query_does_not_match_a_binding_without_domain(client):
    ue = Ue()
    register(client, binding(ipv4Addr=ue.ipv4))
    assert_not_found(client, ipv4Addr=ue.ipv4, ipDomain="dom-a")


def test_ipv6_prefix_containment(client):
    ue = Ue()
    body = binding(ipv6Prefix=ue.ipv6)                      # 2001:db8:N::/64
    register(client, body)
    assert found(client, ipv6Prefix=ue.ipv6_addr) == body   # /128 inside
    assert found(client, ipv6Prefix=f"2001:db8:{ue.n:x}:0:ffff:ffff:ffff:ffff/128") == body
    assert found(client, ipv6Prefix=ue.ipv6) == body        # the same /64
    assert_not_found(client, ipv6Prefix=ue.ipv6_outside)    # /128 in the next /64
    assert_not_found(client, ipv6Prefix=f"2001:db8:{ue.n:x}::/48")  # shorter than the binding


def test_ipv6_query_inside_a_shorter_registered_prefix(client):
    ue = Ue()
    body = binding(ipv6Prefix=f"2001:db8:{ue.n:x}::/56")
    register(client, body)
    assert found(client, ipv6Prefix=f"2001:db8:{ue.n:x}:ff::/64") == body
    assert found(client, ipv6Prefix=f"2001:db8:{ue.n:x}:ff::1/128") == body
    assert_not_found(client, ipv6Prefix=f"2001:db8:{ue.n:x}:100::/64")


def test_ipv6_query_in_non_compressed_form(client):
    ue = Ue()
    body = binding(ipv6Prefix=ue.ipv6)
    register(client, body)
    assert found(client, ipv6Prefix=f"2001:db8:{ue.n:x}:0:0:0:0:1/128") == body


def test_ipv6_query_finds_additional_prefixes(client):
    ue, extra = Ue(), Ue()
    body = binding(ipv6Prefix=ue.ipv6, addIpv6Prefixes=[extra.ipv6])
    register(client, body)
    assert found(client, ipv6Prefix=extra.ipv6_addr) == body
    assert_not_found(client, ipv6Prefix=extra.ipv6_outside)


def test_mac_matching_is_case_insensitive(client):
    ue, extra, unknown = Ue(), Ue(), Ue()
    body = binding(macAddr48=ue.mac, addMacAddrs=[extra.mac], dnn="ethernet")
    register(client, body)
    assert found(client, macAddr48=ue.mac) == body
    assert found(client, macAddr48=ue.mac.upper()) == body
    assert found(client, macAddr48=extra.mac.upper()) == body
    assert_not_found(client, macAddr48=unknown.mac)


@pytest.fixture
def narrowed(client):
    """A binding with every member a filter can look at; returns (ue, body)."""
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4, supi=ue.supi, gpsi=ue.gpsi, dnn=ue.dnn,
                   snssai={"sst": 1, "sd": "0000AB"})
    register(client, body)
    return ue, body


@pytest.mark.parametrize("name, matching, other", [
    ("dnn", lambda ue: ue.dnn, lambda ue: "other.example"),
    ("snssai", lambda ue: {"sst": 1, "sd": "0000AB"}, lambda ue: {"sst": 1, "sd": "0000AC"}),
    ("snssai", lambda ue: {"sst": 1, "sd": "0000AB"}, lambda ue: {"sst": 1}),
    ("snssai", lambda ue: {"sst": 1, "sd": "0000AB"}, lambda ue: {"sst": 2, "sd": "0000AB"}),
    ("supi", lambda ue: ue.supi, lambda ue: "imsi-999990000000001"),
    ("gpsi", lambda ue: ue.gpsi, lambda ue: "msisdn-99999999"),
])
def test_each_filter_narrows_the_match(client, narrowed, name, matching, other):
    ue, body = narrowed
    assert found(client, ipv4Addr=ue.ipv4, **{name: matching(ue)}) == body
    assert_not_found(client, ipv4Addr=ue.ipv4, **{name: other(ue)})


def test_all_filters_together(client, narrowed):
    ue, body = narrowed
    filters = {"dnn": ue.dnn, "snssai": {"sst": 1, "sd": "0000AB"}, "supi": ue.supi, "gpsi": ue.gpsi}
    assert found(client, ipv4Addr=ue.ipv4, **filters) == body
    mismatches = {"dnn": "x.example", "snssai": {"sst": 9}, "supi": "imsi-99999999999",
                  "gpsi": "msisdn-9999999"}
    for name, value in mismatches.items():
        assert_not_found(client, ipv4Addr=ue.ipv4, **dict(filters, **{name: value}))


def test_snssai_filter_as_percent_encoded_json(client, narrowed):
    ue, body = narrowed
    query = f"ipv4Addr={ue.ipv4}&snssai=%7B%22sst%22%3A1%2C%22sd%22%3A%220000AB%22%7D"
    assert assert_binding(client.get(f"/pcfBindings?{query}"), 200) == body
    query = f"ipv4Addr={ue.ipv4}&snssai=%7B%22sst%22%3A1%2C%22sd%22%3A%220000AC%22%7D"
    assert_no_content(client.get(f"/pcfBindings?{query}"))


def test_snssai_without_sd(client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4, snssai={"sst": 5})
    register(client, body)
    assert found(client, ipv4Addr=ue.ipv4, snssai={"sst": 5}) == body
    assert_not_found(client, ipv4Addr=ue.ipv4, snssai={"sst": 5, "sd": "000001"})


def test_supi_filter_does_not_match_a_binding_without_supi(client):
    ue = Ue()
    register(client, binding(ipv4Addr=ue.ipv4))
    assert_not_found(client, ipv4Addr=ue.ipv4, supi=ue.supi)


def test_most_recent_is_returned_by_default(client):
    ue, second = Ue(), Ue()
    older = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id())
    newer = binding(ipv4Addr=ue.ipv4, supi=second.supi, pcfId=new_pcf_id())
    older_id, _ = register(client, older)
    newer_id, _ = register(client, newer)
    assert found(client, ipv4Addr=ue.ipv4) == newer
    assert found(client, ipv4Addr=ue.ipv4, supi=ue.supi) == older
    # "most recently created": updating the older one does not make it the answer
    updated = assert_binding(patch(client, older_id, {"pcfFqdn": "pcf9.example.com"}), 200)
    assert found(client, ipv4Addr=ue.ipv4) == newer
    assert delete(client, newer_id).status_code == 204
    assert found(client, ipv4Addr=ue.ipv4) == updated


def test_reject_answers_400_when_several_match(bsfd_factory):
    server = bsfd_factory({"discovery.multiple_match": "reject"})
    client = server.client
    ue, second = Ue(), Ue()
    first = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id())
    register(client, first)
    assert found(client, ipv4Addr=ue.ipv4) == first
    other_id, _ = register(client, binding(ipv4Addr=ue.ipv4, supi=second.supi, pcfId=new_pcf_id()))
    assert_problem(discover(client, ipv4Addr=ue.ipv4), 400, "MULTIPLE_BINDING_INFO_FOUND")
    assert found(client, ipv4Addr=ue.ipv4, supi=ue.supi) == first
    assert delete(client, other_id).status_code == 204
    assert found(client, ipv4Addr=ue.ipv4) == first


# --- query errors ---------------------------------------------------------------------------

def test_no_ue_address_parameter(client):
    assert_problem(client.get("/pcfBindings"), 400, "MANDATORY_QUERY_PARAM_MISSING")
    assert_problem(discover(client, dnn="internet", supi=Ue().supi), 400, "MANDATORY_QUERY_PARAM_MISSING")


@pytest.mark.parametrize("query, param", [
    ("ipv4Addr=10.0.0.1&ipv6Prefix=2001%3Adb8%3A%3A1%2F128", None),
    ("ipv4Addr=10.0.0.1&macAddr48=02-00-00-00-00-01", None),
    ("ipv6Prefix=2001%3Adb8%3A%3A1%2F128&macAddr48=02-00-00-00-00-01", None),
    ("ipv4Addr=10.0.0.1&ipv4Addr=10.0.0.2", "query ipv4Addr"),
    ("ipv4Addr=10.0.0.1&ipv4Addr=10.0.0.1", "query ipv4Addr"),
    ("ipv4Addr=10.0.0.256", "query ipv4Addr"),
    ("ipv4Addr=abc", "query ipv4Addr"),
    ("ipv4Addr=", "query ipv4Addr"),
    ("ipv6Prefix=2001%3Adb8%3A%3A1", "query ipv6Prefix"),          # no prefix length
    ("ipv6Prefix=2001%3Adb8%3A%3A1%2F129", "query ipv6Prefix"),
    ("ipv6Prefix=2001%3Adb8%3A%3Ag%2F128", "query ipv6Prefix"),
    ("macAddr48=02%3A00%3A00%3A00%3A00%3A01", "query macAddr48"),
    ("macAddr48=02-00-00-00-00", "query macAddr48"),
])
def test_malformed_or_ambiguous_ue_address_parameter(client, query, param):
    assert_problem(client.get(f"/pcfBindings?{query}"), 400, "MANDATORY_QUERY_PARAM_INCORRECT", param)


@pytest.mark.parametrize("name, value", [
    ("dnn", ""),
    ("snssai", "1-000001"),                     # not JSON
    ("snssai", '{"sst": 300}'),
    ("snssai", '{"sd": "000001"}'),
    ("snssai", '{"sst": 1, "sd": "XYZ"}'),
    ("snssai", "[1]"),
    ("supi", ""),
    ("gpsi", ""),
    ("supp-feat", "xyz"),
])
def test_malformed_optional_parameter(client, name, value):
    ue = Ue()
    register(client, binding(ipv4Addr=ue.ipv4))
    resp = client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4, name: value})
    assert_problem(resp, 400, "OPTIONAL_QUERY_PARAM_INCORRECT", f"query {name}")


def test_ip_domain_without_ipv4(client):
    ue = Ue()
    register(client, binding(ipv6Prefix=ue.ipv6, ipDomain=None))
    resp = discover(client, ipv6Prefix=ue.ipv6_addr, ipDomain="dom-a")
    assert_problem(resp, 400, "OPTIONAL_QUERY_PARAM_INCORRECT", "query ipDomain")


def test_unknown_query_parameter(client):
    ue = Ue()
    register(client, binding(ipv4Addr=ue.ipv4))
    assert_problem(discover(client, ipv4Addr=ue.ipv4, fooBar="1"), 400, "INVALID_QUERY_PARAM",
                   "query fooBar")
