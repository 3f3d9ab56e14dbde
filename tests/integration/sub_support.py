"""Helpers of the /subscriptions tests: a valid BsfSubscription, the three operations with
every request and answer body validated against the OpenAPI schemas, and a notification
receiver of our own (tests/peers/notif_receiver.py)."""
import datetime
import json
import pathlib
import re
import sys

import openapi
from support import assert_json, created_id

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "peers"))
from notif_receiver import NotifReceiver  # noqa: E402,F401

SUB_LOCATION = re.compile(r"https?://[^/?#]+/nbsf-management/v1/subscriptions/([0-9a-f]{32})")
PDU_EVENTS = ["PCF_PDU_SESSION_BINDING_REGISTRATION", "PCF_PDU_SESSION_BINDING_DEREGISTRATION"]
UE_EVENTS = ["PCF_UE_BINDING_REGISTRATION", "PCF_UE_BINDING_DEREGISTRATION"]
PAIR_EVENTS = ["SNSSAI_DNN_BINDING_REGISTRATION", "SNSSAI_DNN_BINDING_DEREGISTRATION"]


def subscription(ue, notif_uri, **members):
    """A valid BsfSubscription for `ue` (PDU-session events unless `events` is given); a
    member given as None is left out."""
    body = {"events": PDU_EVENTS, "notifUri": notif_uri,
            "notifCorreId": f"corr-{ue.n}", "supi": ue.supi}
    body.update(members)
    return {name: value for name, value in body.items() if value is not None}


def post_sub(client, body, content_type="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/subscriptions", content=data, headers={"content-type": content_type})


def put_sub(client, sub_id, body):
    return client.put(f"/subscriptions/{sub_id}", content=json.dumps(body).encode(),
                      headers={"content-type": "application/json"})


def delete_sub(client, sub_id):
    return client.delete(f"/subscriptions/{sub_id}")


def assert_sub_resp(resp, status):
    return assert_json(resp, status, "BsfSubscriptionResp", "BsfSubscription")


def subscribe(client, body):
    """POST a schema-valid subscription that must be accepted: (id, the answer's body)."""
    openapi.validate(body, "BsfSubscription")
    resp = post_sub(client, body)
    stored = assert_sub_resp(resp, 201)
    return created_id(resp, SUB_LOCATION, "subscription"), stored


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def in_seconds(seconds):
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stored_subscriptions(server):
    """Entries of the store's `subscriptions` sub-database (live and tombstones)."""
    out = server.bsfctl("stats", "--json").stdout
    return json.loads(out)["databases"]["subscriptions"]["entries"]
