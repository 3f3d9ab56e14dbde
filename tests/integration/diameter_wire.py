"""A bare Diameter peer for tests that watch the base protocol itself (RFC 6733): it connects
over TCP, does CER/CEA, answers DWR, and records every message it receives with its arrival
time. A DPR is answered with DPA, and the peer then sees the connection close. No
freeDiameter here: the timing and the exact AVPs of bsfd's DPR are what is looked at.
"""

import socket
import struct
import threading
import time

CER, DWR, DPR = 257, 280, 282
ORIGIN_HOST, ORIGIN_REALM, HOST_IP, VENDOR_ID = 264, 296, 257, 266
PRODUCT_NAME, AUTH_APP_ID, RESULT_CODE, DISCONNECT_CAUSE = 269, 258, 268, 273
FLAG_REQUEST, AVP_MANDATORY = 0x80, 0x40
RX_APP = 16777236


def avp(code, data, flags=AVP_MANDATORY):
    if isinstance(data, str):
        data = data.encode()
    elif isinstance(data, int):
        data = struct.pack("!I", data)
    head = struct.pack("!IB", code, flags) + (8 + len(data)).to_bytes(3, "big")
    return head + data + b"\0" * (-len(data) % 4)


def message(code, flags, avps, hbh, e2e, app=0):
    body = b"".join(avps)
    return (struct.pack("!B", 1) + (20 + len(body)).to_bytes(3, "big") + struct.pack("!B", flags)
            + code.to_bytes(3, "big") + struct.pack("!III", app, hbh, e2e) + body)


def parse_avps(body):
    """Top-level AVPs: {code: [raw values]} (grouped AVPs stay raw)."""
    avps, at = {}, 0
    while at + 8 <= len(body):
        code, flags = struct.unpack_from("!IB", body, at)
        length = int.from_bytes(body[at + 5:at + 8], "big")
        start = at + (12 if flags & 0x80 else 8)
        if length < start - at or at + length > len(body):
            raise ValueError("bad AVP length")
        avps.setdefault(code, []).append(body[start:at + length])
        at += length + (-length % 4)
    return avps


class Received:
    def __init__(self, at, code, flags, hbh, e2e, avps):
        self.at, self.code, self.flags, self.hbh, self.e2e, self.avps = at, code, flags, hbh, e2e, avps

    @property
    def request(self):
        return bool(self.flags & FLAG_REQUEST)

    def u32(self, code):
        return struct.unpack("!I", self.avps[code][0])[0] if code in self.avps else None


def exchange_capabilities(port, avps, timeout=10.0):
    """Sends one CER made of these raw AVPs on a new connection; returns the CEA (a Received),
    or None when the connection closed without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(message(CER, FLAG_REQUEST, avps, 1, 1))
        head = b""
        try:
            while len(head) < 20:
                chunk = sock.recv(20 - len(head))
                if not chunk:
                    return None
                head += chunk
            body = b""
            length = int.from_bytes(head[1:4], "big")
            while len(body) < length - 20:
                chunk = sock.recv(length - 20 - len(body))
                if not chunk:
                    return None
                body += chunk
        except (ConnectionResetError, socket.timeout):
            return None
    hbh, e2e = struct.unpack_from("!II", head, 12)
    return Received(time.monotonic(), int.from_bytes(head[5:8], "big"), head[4], hbh, e2e,
                    parse_avps(body))


class WirePeer:
    """One TCP connection to bsfd's Diameter port under `identity`; CER/CEA on creation.
    WirePeer.over(sock, ...) does the same on a socket already connected (e.g. a TLS one)."""

    def __init__(self, port, identity, realm, timeout=10.0, sock=None):
        self.identity, self.realm = identity, realm
        self.received, self.closed_at = [], None
        self._lock = threading.Lock()
        self._next_id = 1
        self._sock = sock or socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self._sock.settimeout(timeout)
        self._send(message(CER, FLAG_REQUEST, [
            avp(ORIGIN_HOST, identity), avp(ORIGIN_REALM, realm),
            avp(HOST_IP, struct.pack("!H4s", 1, socket.inet_aton("127.0.0.1"))),
            avp(VENDOR_ID, 0), avp(PRODUCT_NAME, "wire-peer", flags=0),
            avp(AUTH_APP_ID, RX_APP)], *self._ids()))
        cea = self._read()
        assert cea is not None and cea.code == CER and not cea.request, "no CEA"
        assert cea.u32(RESULT_CODE) == 2001, f"CEA Result-Code {cea.u32(RESULT_CODE)}"
        self.cea = cea
        self._sock.settimeout(None)
        self._reader = threading.Thread(target=self._run, daemon=True)
        self._reader.start()

    @classmethod
    def over(cls, sock, identity, realm, timeout=10.0):
        return cls(None, identity, realm, timeout, sock)

    def _ids(self):
        self._next_id += 1
        return self._next_id, self._next_id

    def _send(self, data):
        with self._lock:
            self._sock.sendall(data)

    def _read_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self._sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _read(self):
        head = self._read_exact(20)
        if head is None:
            return None
        length = int.from_bytes(head[1:4], "big")
        body = self._read_exact(length - 20)
        if body is None:
            return None
        flags, code = head[4], int.from_bytes(head[5:8], "big")
        hbh, e2e = struct.unpack_from("!II", head, 12)
        return Received(time.monotonic(), code, flags, hbh, e2e, parse_avps(body))

    def _answer(self, req, extra=()):
        self._send(message(req.code, 0, [avp(RESULT_CODE, 2001), avp(ORIGIN_HOST, self.identity),
                                         avp(ORIGIN_REALM, self.realm), *extra],
                           req.hbh, req.e2e))

    def _run(self):
        try:
            while True:
                msg = self._read()
                if msg is None:
                    break
                self.received.append(msg)
                if msg.request and msg.code in (DWR, DPR):
                    self._answer(msg)
        except OSError:
            pass
        self.closed_at = time.monotonic()

    def request(self, code, avps, app=RX_APP, timeout=10.0):
        """Sends a request with these raw AVPs; returns its answer (a Received), or None."""
        hbh, e2e = self._ids()
        self._send(message(code, FLAG_REQUEST | 0x40, avps, hbh, e2e, app))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in list(self.received):
                if not m.request and m.hbh == hbh:
                    return m
            time.sleep(0.02)
        return None

    def dprs(self):
        return [m for m in self.received if m.code == DPR and m.request]

    def close(self):
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._reader.join(timeout=5)
