"""A disk smaller than the map (a tmpfs of 8 MiB the test mounts itself, under a 16 or
64 MiB map): the store's free space and its reserve come from the filesystem, writes that do
not fit get 507 INSUFFICIENT_RESOURCES (never 500 with the OS's text), the log says so once
per interval, freeing disk space lets writes through again, and after a restart every
acknowledged binding is there and the digest equals bsfctl rebuild's."""

import os
import re
import subprocess
import time

import pytest

from conftest import Bsfd
from support import LOCATION, assert_not_found, assert_problem, describe, found, metrics
from test_store_limits import (assert_restart_finds_exactly, big_binding, deregister_until_room,
                               register_until_full)

DISK_MB = 8
FILLER_MB = 1


@pytest.fixture
def small_disk_server(tmp_path):
    """Starts bsfd (settings given to the returned function) with its store on a fresh
    8 MiB tmpfs holding a 1 MiB filler file; unmounts it at the end."""
    servers, mounts = [], []

    def start(settings):
        workdir = tmp_path / f"bsfd{len(servers)}"
        workdir.mkdir()
        server = Bsfd(workdir, settings)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs",
                               str(server.store)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"mounting a tmpfs is not permitted here (needs root or "
                        f"CAP_SYS_ADMIN): {done.stderr.strip()}")
        mounts.append(server.store)
        with open(server.store / "filler", "wb") as f:
            f.write(b"\xa5" * (FILLER_MB << 20))
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        if server.running:
            server.stop()
    for mount in mounts:
        subprocess.run(["umount", str(mount)], check=False)


def fs_free(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def assert_clean_507(resp):
    body = assert_problem(resp, 507, "INSUFFICIENT_RESOURCES")
    for os_text in ("No space", "Input/output", "quota", "errno"):
        assert os_text not in body["detail"], describe(resp)


def register_one(server, n):
    body = big_binding(n)
    resp = server.client.post("/pcfBindings", json=body)
    return body, resp


def register_more(server, created, n):
    """Registers big_binding(n), which must succeed, into `created`."""
    body, resp = register_one(server, n)
    assert resp.status_code == 201, describe(resp)
    created[LOCATION.match(resp.headers["location"]).group(1)] = body


def fill_the_disk(server):
    """Registers until the disk is full: (created, refused) as register_until_full, every
    refusal a clean 507 that left nothing behind."""
    created, refused = register_until_full(server, threads=4)
    assert len(created) > 200, "the disk filled up implausibly early"
    assert refused, "the disk never filled up"
    for body, resp in refused:
        assert_clean_507(resp)
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    return created, refused


def assert_restart_keeps_exactly(server, created, absent, workdir):
    """assert_restart_finds_exactly, rebuilding off the small disk (in `workdir`)."""
    def digest(server):
        done = server.bsfctl("rebuild", "--out", workdir / "rebuilt", "--map-size", "64")
        return done.stdout.split()[-1]

    assert_restart_finds_exactly(server, created, absent, samples=100, digest=digest)


def out_of_space_log_lines(server):
    return [line for line in server.stderr_text().splitlines() if "out of space" in line]


def test_full_disk_without_reserve_gets_507_and_recovers(small_disk_server, tmp_path):
    """store.reserve_percent=0: the writes run into ENOSPC itself (LMDB's commit)."""
    server = small_disk_server({"store.map_size_mb": 16, "store.reserve_percent": 0})
    started = time.monotonic()
    created, refused = fill_the_disk(server)
    # More writes while full: clean 507s (one may still fit in pages LMDB freed), counted in
    # one log line per interval.
    more = [register_one(server, 0xe000 + k) for k in range(30)]
    for body, resp in more:
        if resp.status_code == 201:
            created[LOCATION.match(resp.headers["location"]).group(1)] = body
        else:
            assert_clean_507(resp)
            refused.append((body, resp))
    assert sum(resp.status_code == 507 for _, resp in more) >= 20, \
        [resp.status_code for _, resp in more]
    lines = out_of_space_log_lines(server)
    assert 1 <= len(lines) <= 2 + (time.monotonic() - started) / 10, lines
    assert re.search(r"\d+ write transaction\(s\) refused with 507", lines[0]), lines
    assert not [line for line in server.stderr_text().splitlines()
                if "write transaction failed" in line], server.stderr_text()[-2000:]
    # The metrics report the filesystem's free space, not the map's.
    samples = metrics(server)
    file_bytes = samples["bsf_store_file_bytes"]
    assert samples["bsf_store_map_bytes"] == 16 << 20
    assert samples["bsf_store_free_bytes"] <= fs_free(server.store) + file_bytes
    assert samples["bsf_store_free_bytes"] < samples["bsf_store_map_bytes"] - file_bytes
    assert samples["bsf_store_free_bytes"] < 1 << 20, samples
    # Reads go on; a deregistration succeeds or fails cleanly, never half.
    ids = list(created)
    deleted = []
    for binding_id in ids[:5]:
        resp = server.client.delete(f"/pcfBindings/{binding_id}")
        if resp.status_code == 204:
            deleted.append(created.pop(binding_id))
        else:
            assert_clean_507(resp)
            assert found(server.client, ipv6Prefix=created[binding_id]["ipv6Prefix"])
    for body in deleted:
        assert_not_found(server.client, ipv6Prefix=body["ipv6Prefix"])
    # Room on the disk: writes succeed again.
    (server.store / "filler").unlink()
    assert fs_free(server.store) >= FILLER_MB << 20
    register_more(server, created, 0xf000)
    assert metrics(server)["bsf_store_free_bytes"] >= (FILLER_MB << 20) // 2
    assert_restart_keeps_exactly(server, created, [b for b, _ in refused] + deleted, tmp_path)


def test_reserve_is_kept_on_a_disk_smaller_than_the_map(small_disk_server, tmp_path):
    """The default reserve (2 % of a 64 MiB map) on an 8 MiB disk: registrations stop when
    the disk, not the map, is down to the reserve, while deregistrations still fit;
    store_full says so, and their room takes registrations again."""
    server = small_disk_server({"store.map_size_mb": 64})
    samples = metrics(server)
    assert samples["bsf_store_free_bytes"] <= fs_free(server.store) + samples[
        "bsf_store_file_bytes"], samples
    assert samples["bsf_store_full"] == 0
    created, refused = fill_the_disk(server)
    assert any("deregistrations" in resp.json()["detail"] for _, resp in refused), \
        "the reserve never refused a registration: the disk filled up first"
    samples = metrics(server)
    assert samples["bsf_store_full"] == 1
    assert samples["bsf_store_map_bytes"] == 64 << 20
    # Under the reserve (2 % of the map: 1.3 MiB) on the disk, which the map never reached.
    assert samples["bsf_store_free_bytes"] < 0.02 * samples["bsf_store_map_bytes"], samples
    assert samples["bsf_store_free_bytes"] <= fs_free(server.store) + samples[
        "bsf_store_file_bytes"], samples
    assert "the disk fills up first" in server.stderr_text()
    deleted = deregister_until_room(server, created, list(created))
    register_more(server, created, 0xf001)
    assert_restart_keeps_exactly(server, created, [b for b, _ in refused] + deleted, tmp_path)


def test_rebuild_takes_a_map_size(small_disk_server, tmp_path):
    server = small_disk_server({"store.map_size_mb": 16})
    for n in range(20):
        assert register_one(server, 0xd000 + n)[1].status_code == 201
    out = tmp_path / "sized"
    digest = server.bsfctl("rebuild", "--out", out, "--map-size", "20").stdout.split()[-1]
    assert digest == server.digest()
    assert (out / "data.mdb").is_file()
    bad = server.bsfctl("rebuild", "--out", tmp_path / "bad", "--map-size", "8", check=False)
    assert bad.returncode == 2 and "--map-size" in bad.stderr, bad
    assert not (tmp_path / "bad" / "data.mdb").exists()
