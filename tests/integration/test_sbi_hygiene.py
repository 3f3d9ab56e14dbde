"""Transport hygiene of the SBI server (issue 13 §6), over HTTP/2 on loopback: the Date of
every answer, ProblemDetails without an empty instance, Accept-Patch on a 415 to a PATCH,
requests without a body, an HTTP/1.1 request on the h2c port."""

import email.utils
import json
import socket
import time

import pytest

import openapi
from support import (MERGE_PATCH, Ue, assert_problem, binding, describe, h2_request,
                     recv_before, register)

API = "/nbsf-management/v1"


def assert_date(headers):
    """A Date header in IMF-fixdate (RFC 9110 §5.6.7) within a few seconds of now."""
    value = headers.get("date")
    assert value, headers
    assert value.endswith(" GMT") and len(value) == 29, value
    when = email.utils.parsedate_to_datetime(value).timestamp()
    assert abs(when - time.time()) < 5, value


# --- Date --------------------------------------------------------------------------------

def test_every_answer_has_a_date(bsfd, client):
    ue = Ue()
    created = client.post("/pcfBindings", json=binding(ipv4Addr=ue.ipv4))
    assert created.status_code == 201, describe(created)
    assert_date(created.headers)
    found = client.get("/pcfBindings", params={"ipv4Addr": ue.ipv4})
    assert found.status_code == 200, describe(found)
    assert_date(found.headers)
    missing = client.delete("/pcfBindings/" + "0" * 32)
    assert missing.status_code == 404, describe(missing)
    assert_date(missing.headers)
    # answered by the server itself, before the handler: 414
    raw = h2_request(bsfd.sbi_port, "GET", API + "/pcfBindings?x=" + "a" * 9000, [])
    assert raw.status == 414, raw
    assert_date(raw.headers)


# --- ProblemDetails.instance ---------------------------------------------------------------

def test_problem_instance_is_the_path_or_absent_never_empty(bsfd, client):
    # refused before the handler (URI too long): the path is not kept, so no instance
    raw = h2_request(bsfd.sbi_port, "GET", API + "/pcfBindings?x=" + "a" * 9000, [])
    problem = json.loads(raw.body)
    openapi.validate(problem, "ProblemDetails")
    assert "instance" not in problem, problem
    # refused before the handler with the path known (body too large): the path
    raw = h2_request(bsfd.sbi_port, "POST", API + "/pcfBindings?a=b",
                     [("content-type", "application/json"), ("content-length", "100000000")],
                     end_stream=False, timeout=5.0)
    assert raw.status == 413, raw
    problem = json.loads(raw.body)
    assert problem.get("instance") == API + "/pcfBindings", problem
    # refused by the handler: the path
    resp = client.delete("/pcfBindings/" + "0" * 32)
    assert resp.json()["instance"] == API + "/pcfBindings/" + "0" * 32, describe(resp)


# --- requests without a body, Accept-Patch ------------------------------------------------

@pytest.mark.parametrize("content_type", ["application/json", None])
def test_post_without_a_body_is_400(bsfd, client, content_type):
    count = bsfd.count()
    headers = [("content-type", content_type)] if content_type else []
    raw = h2_request(bsfd.sbi_port, "POST", API + "/pcfBindings", headers)
    assert raw.status == 400, raw
    problem = json.loads(raw.body)
    openapi.validate(problem, "ProblemDetails")
    assert problem["cause"] == "INVALID_MSG_FORMAT", problem
    assert bsfd.count() == count


@pytest.mark.parametrize("content_type", [MERGE_PATCH, None])
def test_patch_without_a_body_is_400(bsfd, client, content_type):
    binding_id, _ = register(client, binding(ipv4Addr=Ue().ipv4))
    headers = [("content-type", content_type)] if content_type else []
    raw = h2_request(bsfd.sbi_port, "PATCH", f"{API}/pcfBindings/{binding_id}", headers)
    assert raw.status == 400, raw
    assert json.loads(raw.body)["cause"] == "INVALID_MSG_FORMAT", raw


def test_put_without_a_body_on_the_collection_is_405_with_allow(bsfd):
    raw = h2_request(bsfd.sbi_port, "PUT", API + "/pcfBindings", [])
    assert raw.status == 405, raw
    assert {m.strip() for m in raw.headers["allow"].split(",")} == {"GET", "POST"}, raw


def test_415_to_a_patch_names_the_accepted_patch_type(client):
    binding_id, _ = register(client, binding(ipv4Addr=Ue().ipv4))
    resp = client.patch(f"/pcfBindings/{binding_id}", content=b'{"dnn": "x"}',
                        headers={"content-type": "application/json-patch+json"})
    assert_problem(resp, 415, "INVALID_MSG_FORMAT")
    assert resp.headers.get("accept-patch") == MERGE_PATCH, describe(resp)
    # a 415 to a POST has none
    post = client.post("/pcfBindings", content=b"{}", headers={"content-type": "text/plain"})
    assert_problem(post, 415, "INVALID_MSG_FORMAT")
    assert "accept-patch" not in post.headers, describe(post)
