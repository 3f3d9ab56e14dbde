"""h2spec (github.com/summerwind/h2spec), an independent HTTP/2 conformance suite, against
bsfd's cleartext SBI listeners, IPv4 and IPv6 of one dual-stack bsfd (issue 13 §6). Every server test of the suite
must pass. scripts/h2spec-fetch.sh builds it into build/tools/h2spec (CI does, in
scripts/test.sh); H2SPEC names another binary."""

import os
import pathlib
import re
import subprocess

import pytest

from conftest import REPO
from support import ipv6_loopback

H2SPEC = pathlib.Path(os.environ.get("H2SPEC", REPO / "build" / "tools" / "h2spec"))
# The path of a request that gets a complete answer with a body (a discovery miss is 204,
# which some h2spec cases need to carry DATA: a ProblemDetails 404 does).
PATH = "/nbsf-management/v1/pcfBindings/00000000000000000000000000000000"


def h2spec_binary():
    if H2SPEC.is_file() and os.access(H2SPEC, os.X_OK):
        return H2SPEC
    if os.environ.get("CI"):
        pytest.fail(f"{H2SPEC} is missing: scripts/test.sh builds it (scripts/h2spec-fetch.sh)")
    pytest.skip(f"{H2SPEC} is missing: run scripts/h2spec-fetch.sh")


def run_h2spec(host, port):
    done = subprocess.run([str(h2spec_binary()), "-h", host, "-p", str(port), "-P", PATH,
                           "-o", "5"], capture_output=True, text=True, timeout=300)
    summary = re.search(r"(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed", done.stdout)
    assert summary, done.stdout[-3000:] + done.stderr[-2000:]
    total, passed, skipped, failed = map(int, summary.groups())
    failures = done.stdout.split("Failures:", 1)[1] if "Failures:" in done.stdout else ""
    assert failed == 0 and done.returncode == 0, f"{failed} of {total} failed:\n{failures[-6000:]}"
    assert total >= 140 and passed == total - skipped, summary.group(0)
    return total


def test_h2spec_passes_on_both_listeners_of_a_dual_stack_bsfd(bsfd_factory):
    """sbi.listen on 127.0.0.1 and sbi.listen_also on [::1] (without IPv6: IPv4 only)."""
    from conftest import free_ports
    v6 = ipv6_loopback()
    settings = {}
    if v6:
        (v6_port,) = free_ports(1)
        settings["sbi.listen_also"] = f"[::1]:{v6_port}"
    server = bsfd_factory(settings)
    run_h2spec("127.0.0.1", server.sbi_port)
    if v6:
        run_h2spec("[::1]", v6_port)  # h2spec joins host and port as they are
    else:
        pytest.skip("no IPv6 loopback on this machine: only the IPv4 listener was checked")
    # the server is still healthy afterwards
    assert server.ops.get("/health/ready").status_code == 200
