"""bsfd configuration errors: an unknown key or a bad value makes bsfd exit with code 2
and a message on stderr naming the key; --set values are otherwise taken."""

import pytest

from conftest import refused_at_start
from support import Ue, binding, post_binding


@pytest.mark.parametrize("key, value", [
    ("no.such_key", "1"),
    ("sbi.no_such_key", "1"),
    ("site.id", "0"),
    ("site.id", "65536"),
    ("site.id", "seven"),
    ("discovery.multiple_match", "sometimes"),
    ("bindings.collision_detection", "maybe"),
    ("sbi.late_arrival", "2"),
    ("sbi.max_body_bytes", "-1"),
    ("sbi.listen", "not-an-address"),
    ("sbi.api_root", "not a uri"),
])
def test_invalid_setting_exits_2_naming_the_key(tmp_path, key, value):
    refused_at_start(tmp_path, {key: value}, key)


def test_settings_are_applied(bsfd_factory):
    """site.id reaches the events, sbi.api_root the Location header."""
    server = bsfd_factory({"site.id": 65535, "sbi.api_root": "http://bsf.example.org:7777"})
    resp = post_binding(server.client, binding(ipv4Addr=Ue().ipv4))
    assert resp.status_code == 201, resp.text
    assert resp.headers["location"].startswith("http://bsf.example.org:7777/nbsf-management/v1/pcfBindings/")
    binding_id = resp.headers["location"].rsplit("/", 1)[1]
    assert [e["site"] for e in server.history(binding=binding_id)] == [65535]
