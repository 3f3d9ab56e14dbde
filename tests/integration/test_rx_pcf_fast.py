"""pcf_fast, the benchmark's fake PCF (tests/diameter_peers/pcf_fast.c, no freeDiameter): one
process serves several PCF identities, each on its own port, and the gateway uses them like
real PCFs (CER/CEA, AAR-I -> AAA and STR -> STA relayed with the identity's Origin-Host)."""

import signal
import subprocess

from conftest import free_ports
from rx_support import AF_ID, BSF_ID, PEERS_DIR, REALM, RxPeer, peer_up, wait_until
from support import Ue, binding, register

PCFS = ("pcf1.test.local", "pcf2.test.local")


def test_one_pcf_fast_process_serves_two_identities(bsfd_factory, tmp_path):
    ports = free_ports(3)
    diameter_port, pcf_ports = ports[0], dict(zip(PCFS, ports[1:]))
    command = [str(PEERS_DIR / "pcf_fast"), "--realm", REALM]
    for identity, port in pcf_ports.items():
        command += ["--serve", f"{identity}@127.0.0.1:{port}"]
    fast = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    af = None
    try:
        server = bsfd_factory({
            "diameter.enabled": "true", "diameter.identity": BSF_ID, "diameter.realm": REALM,
            "diameter.port": diameter_port, "diameter.accept": AF_ID,
            "diameter.reconnect_s": "1",
            "diameter.peers": ";".join(f"{i}=127.0.0.1:{p}" for i, p in pcf_ports.items())})
        for identity in PCFS:
            wait_until(lambda i=identity: peer_up(server, i), what=f"bsfd connected to {identity}")
        af = RxPeer("af", tmp_path, AF_ID, ["--realm", REALM, "--peer", BSF_ID,
                                            "--peer-port", diameter_port, "--tc-timer", "1"])
        af.wait_peer(BSF_ID)
        for identity in PCFS:
            ue = Ue()
            register(server.client, binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfDiamHost=identity,
                                            pcfDiamRealm=REALM))
            reply = af.cmd(f"aar-i ip={ue.ipv4}")
            assert reply["code"] == 2001, reply
            assert reply["record"]["origin_host"] == identity, reply
            assert reply["record"]["session_id"] == reply["session_id"], reply
            done = af.cmd(f"str session={reply['session_id']}")
            assert done["code"] == 2001 and done["record"]["origin_host"] == identity, done
    finally:
        if af:
            af.stop()
        fast.send_signal(signal.SIGTERM)
        _, err = fast.communicate(timeout=10)
    assert fast.returncode == 0, err
    for identity in PCFS:  # its counters at exit: one AAR and one STR each
        assert f"pcf_fast: {identity} answered 2 requests" in err, err
