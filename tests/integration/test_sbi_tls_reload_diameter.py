"""The Diameter certificate and issue 13 §3: libfdcore loads it once, so a changed file is
not reloaded — bsfd says a restart is needed and keeps measuring the certificate in use
(bsf_tls_cert_expiry_seconds{cert="diameter"}); see docs/security.md."""

import os
import shutil
import time

from conftest import free_ports
from rx_support import BSF_ID, REALM, metric
from support import wait_until
from test_rx_tls import pki  # noqa: F401 - the Diameter test CA (module fixture)


def test_a_changed_diameter_certificate_is_reported_and_its_expiry_measured(bsfd_factory,
                                                                            pki, tmp_path):
    cert = tmp_path / "bsf.pem"
    shutil.copy(pki.path(f"{BSF_ID}.pem"), cert)
    port, tls_port = free_ports(2)
    settings = {"diameter.enabled": "true", "diameter.identity": BSF_ID,
                "diameter.realm": REALM, "diameter.port": port, "tls.reload_interval_s": "1"}
    settings.update(pki.settings(tls_port))
    settings["diameter.tls.cert"] = str(cert)
    bsfd = bsfd_factory(settings)
    left = metric(bsfd, "bsf_tls_cert_expiry_seconds", cert="diameter")
    assert abs(left - (pki.not_after(f"{BSF_ID}.pem") - time.time())) < 120, left
    tmp = tmp_path / "bsf.pem.new"
    shutil.copy(pki.path(f"{BSF_ID}.pem"), tmp)
    os.replace(tmp, cert)  # a renewal rolled out: a new file in place
    wait_until(lambda: "restart bsfd to use the new one" in bsfd.stderr_text(), timeout=15,
               what="the restart notice")
    assert metric(bsfd, "bsf_tls_reloads_total", file="diameter", result="refused") >= 1
    assert metric(bsfd, "bsf_tls_reloads_total", file="diameter", result="ok") == 0
