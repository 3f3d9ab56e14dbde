"""A per-run test PKI made with the `openssl` binary, and TLS clients for bsfd's SBI.

    pki = Pki(directory)               a CA ("ca") and another one ("forger")
    pki.issue("server", "127.0.0.1")   leaf certificate + key signed by the CA (SAN IP)
    pki.issue("pcf", ca="forger")      signed by the other CA (same subject form)
    pki.issue("old", days=-1)          expired (notAfter in the past)
"""

import datetime
import pathlib
import socket
import ssl
import subprocess

import h2.config
import h2.connection
import h2.events


def openssl(*args, cwd=None):
    done = subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(map(str, args))}: {done.stderr}"
    return done.stdout


class Pki:
    def __init__(self, directory):
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        for name in ("ca", "forger"):
            key, cert = self.dir / f"{name}.key", self.dir / f"{name}.pem"
            openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "30",
                    "-subj", f"/O=BSF test/CN=test {name} CA",
                    "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        self.ca = self.dir / "ca.pem"
        self.forger = self.dir / "forger.pem"
        self._serial = 1

    def issue(self, name, ip=None, ca="ca", days=30, key_type="ec", cn=None):
        """Returns (cert_path, key_path). days < 0: a certificate that expired."""
        key, csr, cert = (self.dir / f"{name}.key", self.dir / f"{name}.csr",
                          self.dir / f"{name}.pem")
        if key_type == "rsa":
            openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", key)
        else:
            openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", key)
        openssl("req", "-new", "-key", key, "-out", csr, "-subj",
                f"/O=BSF test/CN={cn or name}")
        ext = self.dir / f"{name}.ext"
        san = f"IP:{ip}" if ip else f"DNS:{name}.test"
        ext.write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\n"
                       "extendedKeyUsage=serverAuth,clientAuth\n")
        self._serial += 1
        args = ["x509", "-req", "-in", csr, "-CA", self.dir / f"{ca}.pem",
                "-CAkey", self.dir / f"{ca}.key", "-set_serial", self._serial,
                "-extfile", ext, "-out", cert]
        if days >= 0:
            args += ["-days", days]
        else:  # openssl x509 has no start date option before 3.4: backdate through ca
            now = datetime.datetime.now(datetime.timezone.utc)
            start = (now - datetime.timedelta(days=10)).strftime("%Y%m%d%H%M%SZ")
            end = (now + datetime.timedelta(days=days)).strftime("%Y%m%d%H%M%SZ")
            return self._issue_dated(name, csr, ext, ca, start, end), key
        openssl(*args)
        return cert, key

    def _issue_dated(self, name, csr, ext, ca, start, end):
        conf = self.dir / f"{name}.ca.cnf"
        db = self.dir / f"{name}.index"
        db.write_text("")
        conf.write_text(
            "[ca]\ndefault_ca=d\n[d]\n"
            f"database={db}\nnew_certs_dir={self.dir}\nserial={self.dir / (name + '.serial')}\n"
            "default_md=sha256\npolicy=p\ncopy_extensions=none\nunique_subject=no\n"
            "[p]\nO=optional\nCN=supplied\n")
        (self.dir / f"{name}.serial").write_text(f"{self._serial + 1000:04X}\n")
        cert = self.dir / f"{name}.pem"
        openssl("ca", "-batch", "-config", conf, "-in", csr, "-cert", self.dir / f"{ca}.pem",
                "-keyfile", self.dir / f"{ca}.key", "-startdate", start, "-enddate", end,
                "-extfile", ext, "-out", cert, "-notext")
        return cert


def server_pki(directory):
    """A Pki in `directory` with the SBI server's certificate for 127.0.0.1 as pki.server
    ((cert_path, key_path)): what the SBI TLS modules' `pki` fixtures start from."""
    pki = Pki(directory)
    pki.server = pki.issue("server", "127.0.0.1")
    return pki


def client_context(pki, cert=None, alpn=("h2",), minimum=None, maximum=None):
    """An ssl.SSLContext trusting the test CA, offering `alpn`, presenting `cert` (a pair)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(pki.ca)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    if cert:
        ctx.load_cert_chain(*cert)
    if minimum:
        ctx.minimum_version = minimum
    if maximum:
        ctx.maximum_version = maximum
    return ctx


def tls_connect(port, ctx, timeout=10.0):
    """A TLS socket to 127.0.0.1:port (the handshake done, or ssl.SSLError/OSError)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        return ctx.wrap_socket(raw, server_hostname="127.0.0.1")
    except BaseException:
        raw.close()
        raise


class H2Tls:
    """A minimal HTTP/2 client on one TLS connection (the `h2` library), kept open across
    requests: it proves which certificate a long-lived connection keeps."""

    def __init__(self, port, ctx, timeout=10.0):
        self.sock = tls_connect(port, ctx, timeout)
        assert self.sock.selected_alpn_protocol() == "h2"
        self.peer_cert = self.sock.getpeercert(binary_form=True)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        self.port = port

    def request(self, method, path, headers=(), body=b""):
        sid = self.conn.get_next_available_stream_id()
        hdrs = [(":method", method), (":scheme", "https"),
                (":authority", f"127.0.0.1:{self.port}"), (":path", path)] + list(headers)
        self.conn.send_headers(sid, hdrs, end_stream=not body)
        if body:
            self.conn.send_data(sid, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        status, resp_headers, data = None, {}, b""
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            for ev in self.conn.receive_data(chunk):
                if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                    resp_headers = {k.decode(): v.decode() for k, v in ev.headers}
                    status = int(resp_headers[":status"])
                elif isinstance(ev, h2.events.DataReceived) and ev.stream_id == sid:
                    data += ev.data
                    self.conn.acknowledge_received_data(ev.flow_controlled_length, sid)
                elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                    self.sock.sendall(self.conn.data_to_send())
                    return status, resp_headers, data
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    raise ConnectionError(f"GOAWAY {ev.error_code}")
            self.sock.sendall(self.conn.data_to_send())

    def close(self):
        try:
            self.conn.close_connection()
            self.sock.sendall(self.conn.data_to_send())
        except OSError:
            pass
        self.sock.close()
