"""DELETE /pcfBindings/{bindingId}: 204, then 404; ids are never reused; ids of any other
shape are answered like unknown ids."""

import pytest

from support import (Ue, assert_gone, assert_no_content, assert_not_found, assert_problem,
                     binding, delete, found, patch, register)


def test_delete_returns_204_and_removes_the_binding(bsfd, client):
    ue = Ue()
    binding_id, _ = register(client, binding(ipv4Addr=ue.ipv4, ipv6Prefix=ue.ipv6))
    before = bsfd.count()
    assert_no_content(delete(client, binding_id))
    assert bsfd.count() == before - 1
    assert_not_found(client, ipv4Addr=ue.ipv4)
    assert_not_found(client, ipv6Prefix=ue.ipv6_addr)
    assert_gone(client, binding_id)
    assert_problem(patch(client, binding_id, {"pcfFqdn": "pcf2.example.com"}), 404,
                   "RESOURCE_CONTEXT_NOT_FOUND")


def test_ids_are_never_reused(client):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    seen = set()
    for _ in range(3):
        binding_id, _ = register(client, body)
        assert binding_id not in seen
        seen.add(binding_id)
        assert_no_content(delete(client, binding_id))
    for binding_id in seen:
        assert_gone(client, binding_id)


def test_deleting_one_binding_keeps_the_other_at_the_same_address(client):
    ue, other = Ue(), Ue()
    first = binding(ipv4Addr=ue.ipv4, supi=ue.supi)
    second = binding(ipv4Addr=ue.ipv4, supi=other.supi)
    first_id, _ = register(client, first)
    second_id, _ = register(client, second)
    assert_no_content(delete(client, second_id))
    assert found(client, ipv4Addr=ue.ipv4) == first
    assert_no_content(delete(client, first_id))
    assert_not_found(client, ipv4Addr=ue.ipv4)


@pytest.mark.parametrize("mangle", [
    str.upper,
    lambda i: i[:-1],
    lambda i: i + "0",
    lambda i: "g" + i[1:],
    lambda i: "0" * 32,
], ids=["uppercase", "31-chars", "33-chars", "non-hex", "unknown"])
def test_other_ids_are_unknown(client, mangle):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4)
    binding_id, _ = register(client, body)
    other_id = mangle(binding_id)
    assert_problem(delete(client, other_id), 404, "RESOURCE_CONTEXT_NOT_FOUND")
    assert_problem(patch(client, other_id, {"pcfFqdn": "pcf2.example.com"}), 404,
                   "RESOURCE_CONTEXT_NOT_FOUND")
    assert found(client, ipv4Addr=ue.ipv4) == body
    assert_no_content(delete(client, binding_id))
