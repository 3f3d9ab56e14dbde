"""bsfctl backup and restore (docs/operations.md, "Backup and restore"): a backup taken while
registrations run holds every binding acknowledged before it started, a prefix of the source's
log and the projections of that prefix, and restores into a store bsfd serves; with the load
stopped the restored digest equals the source's; restore is refused into a store, while bsfd
has the target open, and for a truncated or corrupt file; bsfd refuses a store of another
site.id with exit code 2; a backup's SHA-256 (PATH.sha256) is checked by restore, so a byte
changed inside a record, which LMDB cannot see, is refused."""

import hashlib
import json
import subprocess
import threading

import pytest

from conftest import Bsfd, assert_no_sanitizer_report, run_bsfctl
from support import Ue, binding, found, register

STOP_TIMEOUT = 30


def backup(store, path):
    out = run_bsfctl(store, "backup", "--to", path, "--json").stdout
    info = json.loads(out)
    assert set(info) == {"bytes", "log_position", "site_id", "schema_version", "sha256"}, info
    assert info["bytes"] == path.stat().st_size, info
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert info["sha256"] == digest, info
    sidecar = path.with_name(path.name + ".sha256")
    assert sidecar.read_text() == f"{digest}  {path.name}\n"
    return info


def restore(store, path, *extra, check=True):
    return run_bsfctl(store, "restore", "--from", path, *extra, check=check)


class Load:
    """Registrations on their own connection until stopped; `acked` holds (id, ipv4) of each
    one answered 201, in order."""

    def __init__(self, server):
        self.client = server.new_client()
        self.acked = []
        self.stopping = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            while not self.stopping.is_set():
                ue = Ue()
                binding_id, _ = register(self.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
                self.acked.append((binding_id, ue.ipv4))
        except Exception as error:  # reported by stop()
            self.error = error

    def start(self, at_least):
        self.thread.start()
        while len(self.acked) < at_least and self.thread.is_alive():
            self.stopping.wait(0.01)
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=STOP_TIMEOUT)
        self.client.close()
        assert self.error is None, f"registration load failed: {self.error!r}"
        assert not self.thread.is_alive(), "the load did not stop"


@pytest.fixture
def new_server(tmp_path_factory):
    """A Bsfd not started yet (its store directory empty), stopped at the end if running."""
    servers = []

    def make(settings=None):
        server = Bsfd(tmp_path_factory.mktemp("restored"), settings)
        servers.append(server)
        return server

    yield make
    for server in servers:
        if server.running:
            server.stop()


def test_backup_while_registering_restores_every_acknowledged_binding(bsfd_factory, new_server,
                                                                       tmp_path):
    source = bsfd_factory()
    load = Load(source).start(at_least=50)
    try:
        acked_before = list(load.acked)
        info = backup(source.store, tmp_path / "site1.bak")
        acked_during = len(load.acked)
    finally:
        load.stop()
    assert len(load.acked) > len(acked_before), "the load did not run while the backup was taken"
    assert info["site_id"] == 1 and info["schema_version"] >= 1, info
    # one event per registration: at least those acknowledged before, at most all acknowledged
    # by the time the copy returned
    assert len(acked_before) <= info["log_position"] <= acked_during + 1, (info, acked_during)

    restored = new_server()
    out = restore(restored.store, tmp_path / "site1.bak").stdout
    assert f"log position {info['log_position']}" in out, out
    # one snapshot: the restored log is the source's log up to the backup's position, and
    # the projections are those of that log (a rebuild from it gives the same digest)
    events = run_bsfctl(restored.store, "export", "--json").stdout.splitlines()
    source_events = source.bsfctl("export", "--json").stdout.splitlines()
    assert len(events) == info["log_position"], (len(events), info)
    assert events == source_events[: len(events)]
    rebuilt = run_bsfctl(restored.store, "rebuild", "--out", tmp_path / "rebuilt", "--json")
    assert json.loads(rebuilt.stdout.splitlines()[-1])["digest"] == restored.digest()
    restored.start()
    for binding_id, ipv4 in acked_before:
        assert found(restored.client, ipv4Addr=ipv4)["supi"], binding_id
    assert restored.count() == info["log_position"], "one live binding per event in the backup"


def test_backup_of_a_quiet_store_has_the_same_digest(bsfd_factory, new_server, tmp_path):
    source = bsfd_factory()
    load = Load(source).start(at_least=30)
    load.stop()
    info = backup(source.store, tmp_path / "quiet.bak")
    assert info["log_position"] == len(load.acked), info
    restored = new_server()
    restore(restored.store, tmp_path / "quiet.bak")
    assert restored.digest() == source.digest()
    restored.start()
    assert restored.digest() == source.digest()
    assert restored.count() == len(load.acked)
    # the restored site goes on: a new registration on it is served
    ue = Ue()
    register(restored.client, binding(ipv4Addr=ue.ipv4))
    assert found(restored.client, ipv4Addr=ue.ipv4)


def test_restore_refused_into_a_store_and_while_bsfd_runs(bsfd_factory, new_server, tmp_path):
    source = bsfd_factory()
    ue = Ue()
    register(source.client, binding(ipv4Addr=ue.ipv4))
    path = tmp_path / "one.bak"
    backup(source.store, path)
    # the running bsfd holds its store open: refused even with --force
    for extra in ((), ("--force",)):
        done = restore(source.store, path, *extra, check=False)
        assert done.returncode == 1, done
        assert "has the store" in done.stderr and "open" in done.stderr, done.stderr
    source.stop()
    # stopped, the directory still holds a store: refused without --force, untouched
    before = source.digest()
    done = restore(source.store, path, check=False)
    assert done.returncode == 1 and "holds a store already" in done.stderr, done
    assert_no_sanitizer_report(done.stderr, "bsfctl")
    restore(source.store, path, "--force")
    assert source.digest() == before
    assert not [p.name for p in source.store.iterdir() if p.name.startswith(".restore")]


def test_backup_of_site_1_refused_by_bsfd_of_site_2(bsfd_factory, new_server, tmp_path):
    source = bsfd_factory({"site.id": 1})
    register(source.client, binding(ipv4Addr=Ue().ipv4))
    path = tmp_path / "site1.bak"
    assert backup(source.store, path)["site_id"] == 1
    other = new_server({"site.id": 2})
    restore(other.store, path)
    done = subprocess.run(other.command(), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "site.id is 2 but the store belongs to site 1" in done.stderr, done.stderr[-2000:]
    assert_no_sanitizer_report(done.stderr, "bsfd")
    # with its own site.id it starts
    other.settings["site.id"] = "1"
    other.start()
    assert other.count() == 1


def test_a_store_without_a_site_id_adopts_site_id(bsfd_factory, tmp_path):
    """A store written before site ids were kept, e.g. one `bsfctl rebuild` makes."""
    source = bsfd_factory({"site.id": 3})
    register(source.client, binding(ipv4Addr=Ue().ipv4))
    rebuilt = tmp_path / "rebuilt"
    source.bsfctl("rebuild", "--out", rebuilt)
    path = tmp_path / "rebuilt.bak"
    assert backup(rebuilt, path)["site_id"] == 0  # kept none yet
    source.stop()
    source.settings["store.path"] = str(rebuilt)
    source.settings["site.id"] = "3"
    source.start()
    source.stop()
    assert backup(rebuilt, path)["site_id"] == 3


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "empty", "not_lmdb"])
def test_damaged_backup_refused(bsfd_factory, new_server, tmp_path, damage):
    source = bsfd_factory()
    for _ in range(20):
        register(source.client, binding(ipv4Addr=Ue().ipv4))
    path = tmp_path / "good.bak"
    backup(source.store, path)
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "overwritten":  # both meta pages
        data[0:8192] = b"\xa5" * 8192
    elif damage == "empty":
        data = b""
    else:
        data = b"PK\x03\x04 this is a zip file, not a store\n" * 400
    bad = tmp_path / f"{damage}.bak"
    bad.write_bytes(bytes(data))
    target = new_server()
    done = restore(target.store, bad, check=False)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "is not a usable backup" in done.stderr, done.stderr
    assert_no_sanitizer_report(done.stderr, "bsfctl")
    assert list(target.store.iterdir()) == [], "a refused restore leaves the directory as it was"


def test_backup_and_restore_usage(tmp_path):
    done = run_bsfctl(tmp_path, "backup", check=False)
    assert done.returncode == 2 and "--to" in done.stderr, done
    done = run_bsfctl(tmp_path, "restore", check=False)
    assert done.returncode == 2 and "--from" in done.stderr, done
    done = run_bsfctl(tmp_path, "backup", "--from", "x", check=False)
    assert done.returncode == 2 and "does not take --from" in done.stderr, done
    help_text = run_bsfctl(tmp_path, "restore", "--help").stdout
    assert "--force" in help_text and "lock" in help_text, help_text


def test_changed_byte_inside_a_record_refused_by_its_checksum(bsfd_factory, new_server, tmp_path):
    source = bsfd_factory()
    ues = [Ue() for _ in range(10)]
    for ue in ues:
        register(source.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    path = tmp_path / "good.bak"
    backup(source.store, path)
    sidecar = tmp_path / "good.bak.sha256"
    # sha256sum(1) reads the checksum file as it is
    done = subprocess.run(["sha256sum", "-c", sidecar.name], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "good.bak: OK" in done.stdout, done
    data = bytearray(path.read_bytes())
    # one digit of a SUPI inside a record (the UE's binding or its event): LMDB's structure
    # stays as it was
    at = data.find(ues[4].supi.encode())
    assert at > 0, "the SUPI is stored as text"
    at += len(ues[4].supi) - 1
    data[at] = ord("0") + (data[at] - ord("0") + 1) % 10
    bad = tmp_path / "flipped.bak"
    bad.write_bytes(bytes(data))
    (tmp_path / "flipped.bak.sha256").write_text(sidecar.read_text().replace("good", "flipped"))
    target = new_server()
    done = restore(target.store, bad, check=False)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    want = hashlib.sha256(path.read_bytes()).hexdigest()
    got = hashlib.sha256(bytes(data)).hexdigest()
    assert (f"refused: {bad} does not match its checksum: SHA-256 {got}, {bad}.sha256 records "
            f"{want} (the file changed after the backup)") in done.stderr, done.stderr
    assert_no_sanitizer_report(done.stderr, "bsfctl")
    assert list(target.store.iterdir()) == [], "a refused restore leaves the directory as it was"
    # a checksum file that is not one is refused too
    (tmp_path / "flipped.bak.sha256").write_text("not a checksum\n")
    done = restore(target.store, bad, check=False)
    assert done.returncode == 1 and "is not a SHA-256 line" in done.stderr, done.stderr
    # without its checksum file only the structure can be checked, and the change passes:
    # restore says so
    (tmp_path / "flipped.bak.sha256").unlink()
    done = restore(target.store, bad, check=False)
    assert done.returncode == 0, done.stderr
    assert "warning: no " + str(bad) + ".sha256" in done.stderr, done.stderr
    # the intact backup with its checksum restores
    restore(target.store, path, "--force")
    assert target.digest() == source.digest()
