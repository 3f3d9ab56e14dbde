"""Helpers of the /pcf-ue-bindings integration tests: a valid PcfForUeBinding and the four
operations, each request and response body validated against the OpenAPI schemas."""
import json
import re

import openapi
from support import MERGE_PATCH, assert_json, assert_json_array, created_id

UE_LOCATION = re.compile(r"https?://[^/?#]+/nbsf-management/v1/pcf-ue-bindings/([0-9a-f]{32})")


def ue_binding(ue, **members):
    """A valid PcfForUeBinding for `ue`; a member given as None is left out."""
    body = {"supi": ue.supi, "gpsi": ue.gpsi, "pcfForUeFqdn": "pcf-ue1.example.com"}
    body.update(members)
    return {name: value for name, value in body.items() if value is not None}


def assert_ue_binding(resp, status):
    return assert_json(resp, status, "PcfForUeBinding")


def post_ue(client, body, content_type="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/pcf-ue-bindings", content=data, headers={"content-type": content_type})


def register_ue(client, body):
    """POST a schema-valid binding that must be accepted: (binding id, stored binding)."""
    openapi.validate(body, "PcfForUeBinding")
    resp = post_ue(client, body)
    stored = assert_ue_binding(resp, 201)
    return created_id(resp, UE_LOCATION, "UE binding"), stored


def discover_ue(client, **params):
    return client.get("/pcf-ue-bindings", params=params)


def found_ue(client, **params):
    """Discovery answered 200 with an array of PcfForUeBinding (possibly empty)."""
    return assert_json_array(discover_ue(client, **params), "PcfForUeBinding")


def patch_ue(client, binding_id, changes, content_type=MERGE_PATCH):
    if content_type == MERGE_PATCH:
        openapi.validate(changes, "PcfForUeBindingPatch")
    return client.patch(f"/pcf-ue-bindings/{binding_id}", content=json.dumps(changes).encode(),
                        headers={"content-type": content_type})


def delete_ue(client, binding_id):
    return client.delete(f"/pcf-ue-bindings/{binding_id}")
