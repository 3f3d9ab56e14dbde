"""bsfd's log (issue 15 §4): JSON lines with log.format=json, the version at start,
per-module levels (log.modules), the request's correlation, and no line per replaced binding:
re-registrations of a session are summed up in one INFO line, each one is a DEBUG line."""

import json
import subprocess

from conftest import BSFD, refused_at_start
from support import Ue, binding, register

REREGISTRATIONS = 40


def reregister(server, count):
    ue = Ue()
    body = binding(ipv4Addr=ue.ipv4, supi=ue.supi)
    ids = [register(server.client, body)[0] for _ in range(count)]
    assert len(set(ids)) == count  # each registration replaced the one before
    return ids


def test_json_lines_and_one_summary_for_many_replacements(bsfd_factory):
    server = bsfd_factory({"log.format": "json"})
    ids = reregister(server, REREGISTRATIONS)
    server.stop()
    lines = server.stderr_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    for r in records:
        assert set(r) <= {"ts", "level", "module", "msg", "correlation"}, r
        assert r["level"] in ("ERROR", "WARN", "INFO", "DEBUG"), r
        assert r["ts"].endswith("Z"), r
    version = subprocess.run([str(BSFD), "--version"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
    assert version.startswith("bsfd ") and len(version.split()) == 2, version
    assert any(r["msg"] == f"{version} starting" for r in records), records[:3]
    replaced = [r for r in records if "replaced" in r["msg"]]
    # 39 replacements: one summary while serving (the first), one at stop; never one each
    assert 1 <= len(replaced) <= 2, replaced
    assert all(r["level"] == "INFO" for r in replaced), replaced
    total = sum(int(r["msg"].split()[0]) for r in replaced)
    assert total == len(ids) - 1, replaced


def test_module_debug_writes_each_replacement(bsfd_factory):
    server = bsfd_factory({"log.modules": "engine=debug,sbi=warn"})
    ids = reregister(server, 5)
    server.stop()
    text = server.stderr_text()
    each = [line for line in text.splitlines() if " DEBUG engine: binding " in line]
    assert len(each) == 4, text
    for old, new, line in zip(ids, ids[1:], each):
        assert f"binding {old} replaced (" in line and line.endswith(f" by {new}"), line
    assert " DEBUG sbi:" not in text and " DEBUG nrf:" not in text


def test_log_settings_are_checked(tmp_path):
    for i, (settings, key, quoted) in enumerate([
            ({"log.modules": "engine=loud"}, "log.modules", "engine=loud"),
            ({"log.modules": "sbi=debug,nosuchmodule=debug"}, "log.modules", "nosuchmodule"),
            ({"log.format": "xml"}, "log.format", "xml")]):
        (tmp_path / str(i)).mkdir()
        err = refused_at_start(tmp_path / str(i), settings)
        assert key in err and quoted in err, err


def test_version_options():
    for binary in (BSFD,):
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                              timeout=10)
        assert done.returncode == 0 and done.stderr == "", done
        name, version = done.stdout.split()
        assert name == "bsfd" and version[0].isdigit() and version.count(".") >= 2, done.stdout
