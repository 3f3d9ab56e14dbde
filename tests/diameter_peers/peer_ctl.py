"""Client of a test peer's control socket (af_peer / pcf_peer --ctl PATH): a command line in,
a JSON line out. Shared by the peers' self-test, their pair benchmark and bench/rx_bench.py."""

import json
import socket
import subprocess
import time


class PeerCtl:
    def __init__(self, path, timeout=10.0):
        """Connects, retrying while the peer is starting (up to `timeout` seconds)."""
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.f = self.sock.makefile("rwb")

    def __call__(self, line):
        """The peer's reply, whatever it says."""
        self.f.write((line + "\n").encode())
        self.f.flush()
        return json.loads(self.f.readline())

    def cmd(self, line):
        """The peer's reply; RuntimeError unless it says ok."""
        reply = self(line)
        if not reply.get("ok"):
            raise RuntimeError(f"{line!r} failed: {reply}")
        return reply


def reap(proc, timeout=10):
    """Waits for a peer process told to quit; terminates it after `timeout` seconds."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.wait()
