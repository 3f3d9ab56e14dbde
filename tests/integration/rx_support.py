"""Helpers of the Rx gateway tests: real Diameter peers (tests/diameter_peers) around a real bsfd.

    RxPeer   one af_peer or pcf_peer process, driven over its control socket; its JSON event
             stream is read from a file
    RxLab    bsfd with the Rx gateway on, N PCF peers it connects to, one AF peer connected to
             it; realm test.local everywhere unless told otherwise
    metrics(bsfd) / metric(...)  the Prometheus samples of the ops endpoint

The peers come from RX_PEERS_DIR (default build/tests/diameter_peers): they are test tools,
built in the release flavour; bsfd itself may be the sanitizer build (BSFD).
"""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import REPO, assert_no_sanitizer_report, free_ports
from support import metrics, wait_until

PEERS_DIR = pathlib.Path(os.environ.get("RX_PEERS_DIR", REPO / "build" / "tests" / "diameter_peers"))
REALM = "test.local"
BSF_ID = "bsf.test.local"
AF_ID = "af.test.local"
RX_APP = 16777236
WAIT = 15.0


class RxPeer:
    """af_peer or pcf_peer with a control socket and an event file."""

    def __init__(self, kind, workdir, identity, args):
        binary = PEERS_DIR / f"{kind}_peer"
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            pytest.fail(f"{binary} is missing: build the tree, or point RX_PEERS_DIR at the peers")
        self.kind, self.identity = kind, identity
        self.workdir = pathlib.Path(workdir)
        self.ctl_path = self.workdir / f"{identity}.sock"
        self.events_path = self.workdir / f"{identity}.events"
        self.stderr_path = self.workdir / f"{identity}.err"
        for path in (self.ctl_path, self.events_path):
            if path.exists():
                path.unlink()
        self.command = [str(binary), "--identity", identity, "--ctl", str(self.ctl_path),
                        "--no-stdin", "--events", str(self.events_path), "--fd-log", "error",
                        "--threads", "2", *map(str, args)]
        with open(self.stderr_path, "ab") as err:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=err)
        self._sock = None
        self._file = None
        self._connect()

    def _connect(self):
        deadline = time.monotonic() + WAIT
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"{self.identity} exited with {self.process.returncode}: "
                            f"{self.stderr_path.read_text(errors='replace')[-2000:]}")
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(self.ctl_path))
                self._sock, self._file = sock, sock.makefile("rwb")
                return
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    pytest.fail(f"{self.identity}: control socket never came up")
                time.sleep(0.02)

    def cmd(self, line, ok=True):
        """One control command; its JSON reply (asserted ok unless ok=False)."""
        self._file.write((line + "\n").encode())
        self._file.flush()
        raw = self._file.readline()
        assert raw, f"{self.identity} closed its control socket on {line!r}"
        reply = json.loads(raw)
        if ok:
            assert reply.get("ok"), f"{self.identity}: {line!r} -> {reply}"
        return reply

    def events(self, **match):
        """Event records (dicts) whose members equal `match`."""
        if not self.events_path.exists():
            return []
        out = []
        with open(self.events_path) as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # a record being written
                record = json.loads(line)
                if all(record.get(k) == v for k, v in match.items()):
                    out.append(record)
        return out

    def received(self, session_id, kind=None):
        """Requests of a session this peer received."""
        match = {"type": "recv", "session_id": session_id}
        if kind:
            match["kind"] = kind
        return [r for r in self.events(**match) if r.get("request")]

    def wait_peer(self, identity, timeout_ms=15000):
        return self.cmd(f"wait-peer id={identity} timeout={timeout_ms}")

    def stop(self):
        if self.process.poll() is None:
            try:
                self.cmd("quit", ok=False)
            except (OSError, AssertionError, json.JSONDecodeError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._sock:
            self._sock.close()
            self._sock = self._file = None

    def kill(self):
        """SIGKILL: the connection drops without DPR."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        if self._sock:
            self._sock.close()
            self._sock = self._file = None


def metric(bsfd, name, **labels):
    """One sample (0 when absent). Labels are matched exactly, in any order."""
    want = {k: str(v) for k, v in labels.items()}
    for key, value in metrics(bsfd).items():
        base, _, rest = key.partition("{")
        if base != name:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if got == want:
            return value
    return 0.0


def peer_up(bsfd, identity):
    return metric(bsfd, "ocbsf_diam_peer_up", peer=identity) == 1.0


class RxLab:
    """bsfd (Rx gateway on) + PCF peers + one AF peer, all on loopback with free ports.

    pcfs:      identities of the PCF peers (each listens; bsfd connects to every one)
    settings:  extra bsfd settings (diameter.* and others)
    pcf_args:  extra command-line arguments of every pcf_peer
    tls_pcfs:  {identity: port}: bsfd reaches those PCFs over TLS on that port
    """

    def __init__(self, bsfd_factory, tmp_path, pcfs=("pcf1.test.local",), settings=None,
                 pcf_args=(), af_args=(), realm=REALM, capture=None, tls_pcfs=None):
        self.tls_pcfs = tls_pcfs or {}
        self.tmp = pathlib.Path(tmp_path)
        self.realm = realm
        self.pcfs, self.relay, self.af = {}, None, None
        try:
            self._start(bsfd_factory, pcfs, settings, pcf_args, af_args, realm, capture)
        except BaseException:
            self.close()  # no peer outlives a lab that did not start
            raise

    def _start(self, bsfd_factory, pcfs, settings, pcf_args, af_args, realm, capture):
        ports = free_ports(1 + len(pcfs))
        self.diameter_port, self.pcf_ports = ports[0], dict(zip(pcfs, ports[1:]))
        self.pcf_args = list(pcf_args)
        for identity in pcfs:
            self.start_pcf(identity)
        # capture=PCF: bsfd reaches that PCF through a recording relay (see DiameterRelay)
        if capture:
            self.relay = DiameterRelay(self.pcf_ports[capture], self.tmp / "gateway.pcap")
        peers = ";".join(
            f"{pid}=127.0.0.1:{self.tls_pcfs[pid]} tls" if pid in self.tls_pcfs else
            f"{pid}=127.0.0.1:{self.relay.port if pid == capture else port}"
            for pid, port in self.pcf_ports.items())
        config = {
            "diameter.enabled": "true",
            "diameter.identity": BSF_ID,
            "diameter.realm": realm,
            "diameter.port": self.diameter_port,
            "diameter.peers": peers,
            "diameter.accept": AF_ID,
            "diameter.reconnect_s": "1",
        }
        config.update({k: str(v) for k, v in (settings or {}).items()})
        self.bsfd = bsfd_factory(config)
        for identity in pcfs:
            wait_until(lambda i=identity: peer_up(self.bsfd, i), what=f"bsfd connected to {identity}")
        self.af = RxPeer("af", self.tmp, AF_ID,
                         ["--realm", realm, "--peer", BSF_ID, "--peer-port", self.diameter_port,
                          "--timeout-ms", "15000", "--tc-timer", "1", *af_args])
        self.af.wait_peer(BSF_ID)
        wait_until(lambda: peer_up(self.bsfd, AF_ID), what="the AF connected to bsfd")

    def start_pcf(self, identity, extra=()):
        self.pcfs[identity] = RxPeer("pcf", self.tmp, identity,
                                     ["--realm", self.realm, "--port", self.pcf_ports[identity],
                                      "--accept", BSF_ID, "--default-route", BSF_ID,
                                      "--tc-timer", "1", *self.pcf_args, *extra])
        return self.pcfs[identity]

    def pcf(self, name="pcf1.test.local"):
        return self.pcfs[name]

    def register(self, ue, pcf="pcf1.test.local", headers=None, **members):
        """Registers a binding of `ue` (its IPv4 address unless members say otherwise) owned
        by the PCF `pcf`; returns the binding id."""
        from support import binding, register
        body = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfDiamHost=pcf, pcfDiamRealm=self.realm)
        body.update(members)
        body = {k: v for k, v in body.items() if v is not None}
        binding_id, _ = register(self.bsfd.client, body, headers=headers)
        return binding_id

    def registered_ue(self, pcf="pcf1.test.local", **members):
        """A new UE (support.Ue) whose binding is registered as by register()."""
        from support import Ue
        ue = Ue()
        self.register(ue, pcf=pcf, **members)
        return ue

    def aar_i(self, args="", **kw):
        line = "aar-i " + args + "".join(f" {k.replace('_', '-')}={v}" for k, v in kw.items())
        return self.af.cmd(line.strip())

    def hold_aar_is(self, ues, pcf="pcf1.test.local"):
        """Sends one AAR-I per (registered) UE that the PCF never answers; returns once they
        are all pending at bsfd."""
        self.pcf(pcf).cmd(f"answer cmd=aar-i drop count={len(ues)}")
        for ue in ues:
            self.aar_i("wait=0", ip=ue.ipv4)
        wait_until(lambda: self.pending() == len(ues), what=f"{len(ues)} AAR-Is to be pending")

    def pending(self):
        return metric(self.bsfd, "ocbsf_diam_pending_requests")

    def close(self):
        if self.relay:
            self.relay.close()
        peers = [p for p in (self.af, *self.pcfs.values()) if p]
        for peer in peers:
            peer.stop()
        for peer in peers:
            assert_no_sanitizer_report(peer.stderr_path.read_text(errors="replace"), peer.identity)


@pytest.fixture
def rx_lab(bsfd_factory, tmp_path):
    """Factory: rx_lab(pcfs=..., settings=...) -> RxLab; everything is stopped afterwards."""
    labs = []

    def make(**kw):
        lab = RxLab(bsfd_factory, tmp_path / f"lab{len(labs)}", **kw)
        labs.append(lab)
        return lab

    (tmp_path / "lab0").mkdir(exist_ok=True)
    for i in range(1, 4):
        (tmp_path / f"lab{i}").mkdir(exist_ok=True)
    yield make
    for lab in labs:
        lab.close()


class DiameterRelay:
    """A TCP relay between bsfd and one peer that records every Diameter message crossing it
    into a pcap file (link type USER0, one message per packet), so that an independent
    decoder (tshark's Diameter dissector) can read exactly what the gateway sent and got.
    Needs no capture privilege."""

    LINKTYPE = 147  # DLT_USER0

    def __init__(self, target_port, pcap_path):
        import struct
        import threading
        self._struct = struct
        self.target_port = target_port
        self.pcap_path = pathlib.Path(pcap_path)
        self._lock = threading.Lock()
        self._pcap = open(self.pcap_path, "wb")
        self._pcap.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, self.LINKTYPE))
        self.messages = 0
        self._listen = socket.socket()
        self._listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listen.bind(("127.0.0.1", 0))
        self._listen.listen(4)
        self.port = self._listen.getsockname()[1]
        self._socks = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _record(self, message):
        now = time.time()
        with self._lock:
            if self._closed:
                return
            self._pcap.write(self._struct.pack("<IIII", int(now), int(now % 1 * 1e6),
                                               len(message), len(message)) + message)
            self._pcap.flush()
            self.messages += 1

    def _pipe(self, src, dst):
        buf = b""
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                buf += data
                while len(buf) >= 4:
                    length = int.from_bytes(buf[1:4], "big")
                    if len(buf) < length:
                        break
                    self._record(buf[:length])
                    buf = buf[length:]
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept(self):
        import threading
        while True:
            try:
                client, _ = self._listen.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            self._socks += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def close(self):
        self._listen.close()
        for s in self._socks:
            try:
                s.close()
            except OSError:
                pass
        with self._lock:
            self._closed = True
            self._pcap.close()


def tshark_decode(pcap_path, fields):
    """Each recorded message decoded by tshark: a list of {field: [values]}."""
    import shutil
    tshark = shutil.which("tshark")
    if not tshark:
        pytest.fail("tshark is missing: scripts/install-deps.sh installs it")
    command = [tshark, "-n", "-o", 'uat:user_dlts:"User 0 (DLT=147)","diameter","0","","0",""',
               "-r", str(pcap_path), "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
               "-E", "aggregator=|"]
    for field in fields:
        command += ["-e", field]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = []
    for line in done.stdout.splitlines():
        values = line.split("\t")
        rows.append({f: (v.split("|") if v else []) for f, v in zip(fields, values)})
    return rows
