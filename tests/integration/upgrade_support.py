"""Upgrades from the previous release (docs/operations.md, "Upgrading"): its bsfd and bsfctl,
built from git by scripts/build-previous-release.sh (reused once built; BSFD_PREVIOUS and
BSFCTL_PREVIOUS name other binaries), a server class that runs them, and the history the
upgrade tests and the fixture store (fixtures/upgrade/) are written with."""

import json
import os
import pathlib
import subprocess

import openapi
from conftest import REPO, Bsfd
from support import Ue, binding, delete, patch, register, sbi_time, utc_now
from ue_support import delete_ue, register_ue, ue_binding

# main at the end of the fourth session (merge of s3-tls): schema 3, events version 1, no
# upgrade work of issue 15 yet
PREVIOUS_COMMIT = "0248567"
FIXTURE_DIR = pathlib.Path(__file__).parent / "fixtures" / "upgrade"
# what keeps an old store as it was written: no log trimming by age, tombstones kept, no audit
QUIET = {"log.retention": "3650d", "store.tombstone_horizon": "0", "audit.enabled": "false"}


def previous_binaries():
    """(bsfd, bsfctl) of the previous release; built on the first call (a few minutes)."""
    bsfd, bsfctl = os.environ.get("BSFD_PREVIOUS"), os.environ.get("BSFCTL_PREVIOUS")
    if bsfd and bsfctl:
        return pathlib.Path(bsfd), pathlib.Path(bsfctl)
    done = subprocess.run(["bash", str(REPO / "scripts" / "build-previous-release.sh"),
                           PREVIOUS_COMMIT], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"building {PREVIOUS_COMMIT} failed:\n{done.stderr[-4000:]}"
    build = pathlib.Path(done.stdout.strip().splitlines()[-1])
    return build / "bsfd" / "bsfd", build / "bsfctl" / "bsfctl"


class PreviousBsfd(Bsfd):
    """A Bsfd that runs the previous release's binary (switch with `binary`)."""

    def __init__(self, workdir, settings=None, binary=None):
        super().__init__(workdir, settings)
        self.binary = binary

    def command(self):
        command = super().command()
        if self.binary is not None:
            command[0] = str(self.binary)
        return command


def mbs_session(n):
    return {"tmgi": {"mbsServiceId": f"{0xA000 + n:06X}", "plmnId": {"mcc": "001", "mnc": "01"}}}


def write_history(client):
    """Registrations of every kind, updates and deregistrations; returns what must be found
    afterwards (JSON-able)."""
    live, gone, ues, mbs = [], [], [], []
    for i in range(30):
        ue = Ue()
        body = binding(ipv4Addr=ue.ipv4, supi=ue.supi, gpsi=ue.gpsi if i % 3 else None,
                       ipv6Prefix=ue.ipv6 if i % 2 else None, pcfId=None)
        headers = {"3gpp-Sbi-Origination-Timestamp": sbi_time(utc_now())} if i % 4 == 0 else None
        binding_id, _ = register(client, body, headers)
        live.append({"id": binding_id, "ipv4": ue.ipv4, "supi": ue.supi,
                     "pcfFqdn": body["pcfFqdn"]})
    for entry in live[:8]:  # updates: another PCF
        resp = patch(client, entry["id"], {"pcfFqdn": "pcf2.example.com"})
        assert resp.status_code == 200, resp.text
        entry["pcfFqdn"] = "pcf2.example.com"
    for entry in live[-6:]:
        assert delete(client, entry["id"]).status_code == 204
        gone.append(entry)
    del live[-6:]
    for i in range(5):
        ue = Ue()
        binding_id, _ = register_ue(client, ue_binding(ue))
        ues.append({"id": binding_id, "supi": ue.supi})
    assert delete_ue(client, ues[-1]["id"]).status_code == 204
    gone_ue = ues.pop()
    for n in range(3):
        body = {"mbsSessionId": mbs_session(n), "pcfFqdn": "pcf-mbs1.example.com"}
        openapi.validate(body, "PcfMbsBinding")
        resp = client.post("/pcf-mbs-bindings", content=json.dumps(body).encode(),
                           headers={"content-type": "application/json"})
        assert resp.status_code == 201, resp.text
        mbs.append(body)
    return {"live": live, "gone": gone, "ue": ues, "gone_ue": gone_ue, "mbs": mbs}
