"""bsfctl's command line (issue 15 §7): getopt_long options in any order, --help per command,
options a command does not take refused, --json on every command, a progress bar with rate
and ETA when stderr is a terminal (a real pty) and none when it is not, --version, and
history's single pass: an address's history keeps the deregistration and the updates."""

import json
import os
import pty
import select
import subprocess

import pytest

from conftest import BSFCTL, run_bsfctl
from support import Ue, assert_binding, assert_no_content, binding, delete, patch, register

COMMANDS = ("history", "digest", "rebuild", "stats", "replay", "export")


@pytest.fixture(scope="module")
def bsfd(module_bsfd_factory):
    return module_bsfd_factory({"site.id": 3})


@pytest.fixture(scope="module")
def loaded(bsfd):
    """A store with a few thousand events, and one UE whose binding moved and went."""
    client = bsfd.new_client()
    for _ in range(500):
        ue = Ue()
        register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    ue, moved = Ue(), Ue()
    binding_id, _ = register(client, binding(ipv4Addr=ue.ipv4, supi=ue.supi))
    assert_binding(patch(client, binding_id, {"ipv4Addr": moved.ipv4}), 200)
    assert_no_content(delete(client, binding_id))
    client.close()
    return ue, moved, binding_id


def bsfctl(*args, check=True):
    done = subprocess.run([str(BSFCTL), *map(str, args)], capture_output=True, text=True,
                          timeout=120)
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def test_help_per_command_and_refused_options(bsfd):
    for command in COMMANDS:
        done = bsfctl(command, "--help")
        assert done.stdout.startswith(f"usage: bsfctl --store DIR {command}"), done.stdout
        assert done.stderr == ""
    assert "--binding ID" in bsfctl("history", "--help").stdout
    assert "--map-size MB" in bsfctl("rebuild", "-h").stdout
    refused = bsfctl("--store", bsfd.store, "digest", "--out", "/tmp/x", check=False)
    assert refused.returncode == 2 and "digest does not take --out" in refused.stderr
    for bad, why in ((["--nosuch"], "--nosuch is not an option"),
                     (["digest", "--store"], "--store needs a value"),
                     (["frobnicate"], "unknown command frobnicate"),
                     (["digest"], "digest needs --store DIR")):
        done = bsfctl(*bad, check=False)
        assert done.returncode == 2 and why in done.stderr, (bad, done.stderr)
    # options before or after the command, = or a separate value
    a = bsfctl("digest", f"--store={bsfd.store}").stdout
    b = bsfctl("--store", bsfd.store, "digest").stdout
    assert a == b and len(a.strip()) == 64


def test_json_on_every_command(bsfd, loaded, tmp_path):
    ue, moved, binding_id = loaded
    store = bsfd.store
    digest = json.loads(bsfctl("--store", store, "digest", "--json").stdout)
    assert len(digest["digest"]) == 64
    stats = json.loads(bsfctl("--store", store, "stats", "--json").stdout)
    assert stats["liveBindings"] >= 500
    rebuilt = json.loads(bsfctl("--store", store, "rebuild", "--out", tmp_path / "r",
                                "--json").stdout)
    assert rebuilt == digest
    lines = bsfctl("--store", store, "export", "--json").stdout.splitlines()
    assert len(lines) >= 503 and all(json.loads(line)["type"] for line in lines)
    refused = bsfctl("--store", store, "export", "--json", "--format", "msgpack", check=False)
    assert refused.returncode == 2
    history = [json.loads(line) for line in
               bsfctl("--store", store, "history", "--binding", binding_id, "--json")
               .stdout.splitlines()]
    assert [e["type"] for e in history] == ["BindingRegistered", "BindingUpdated",
                                            "BindingDeregistered"]


def test_history_of_an_address_in_one_pass(bsfd, loaded):
    ue, moved, binding_id = loaded
    for addr in (ue.ipv4, moved.ipv4):
        events = [json.loads(line) for line in
                  bsfctl("--store", bsfd.store, "history", "--ue-addr", addr, "--json")
                  .stdout.splitlines()]
        types = [e["type"] for e in events]
        # the old address: from the registration on; the new one: from the update that moved
        # the binding there; the deregistration (which names no address) in both
        want = ["BindingRegistered", "BindingUpdated", "BindingDeregistered"] \
            if addr == ue.ipv4 else ["BindingUpdated", "BindingDeregistered"]
        assert types == want, (addr, events)
        assert {e["bindingId"] for e in events} == {binding_id}


def run_on_pty(args):
    """Runs bsfctl with stderr on a pseudo-terminal; returns (exit code, what the terminal
    got, stdout)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(BSFCTL), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    got = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    out = proc.stdout.read()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, got.decode(errors="replace"), out.decode()


def test_progress_bar_on_a_terminal_only(bsfd, loaded, tmp_path):
    code, tty, out = run_on_pty(["--store", bsfd.store, "rebuild", "--out", tmp_path / "p"])
    assert code == 0, tty
    assert "\r" in tty and "events" in tty and "/s" in tty, tty
    assert "%" in tty and "ETA" in tty and "[" in tty, tty  # the total is known: a bar
    assert tty.endswith("\x1b[K") or "replayed" in tty  # erased before the summary
    assert len(out.strip()) == 64  # stdout holds the digest only
    piped = bsfctl("--store", bsfd.store, "rebuild", "--out", tmp_path / "q")
    assert "\r" not in piped.stderr and "ETA" not in piped.stderr, piped.stderr
    code, tty, out = run_on_pty(["--store", bsfd.store, "export"])
    assert code == 0 and "ETA" in tty, tty
    assert "\r" not in out and "ETA" not in out


def test_version():
    done = bsfctl("--version")
    name, version = done.stdout.split()
    assert name == "bsfctl" and version[0].isdigit(), done.stdout
