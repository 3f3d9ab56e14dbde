#!/usr/bin/env python3
"""End-to-end self-test of the Rx test peers: af_peer connected directly to pcf_peer.

Checks AAR-I (IPv4, IPv6) / AAR-U / STR, RAR and ASR from the PCF, configured error answers,
delays, never-answered requests (timeout), malformed requests and the answers freeDiameter
itself produces, an answer freeDiameter discards (reported as "dropped", not left hanging),
loopback-only listening, and that every event line is valid JSON.

usage: peers_selftest.py BUILD_DIR [--port P] [--keep]     (exit status 0 = all passed)
"""
import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time

from peer_ctl import PeerCtl, reap

RX_APP = 16777236


class Peers:
    def __init__(self, build, port, tmp, af_extra=()):
        self.tmp = tmp
        common = ["--realm", "test.local", "--no-stdin", "--fd-log", "error", "--timeout-ms", "3000"]
        self.pcf = subprocess.Popen(
            [f"{build}/pcf_peer", "--identity", "pcf.test.local", "--port", str(port),
             "--accept", "af.test.local", "--ctl", f"{tmp}/pcf.sock", "--events", f"{tmp}/pcf.events"]
            + common, stderr=open(f"{tmp}/pcf.err", "a"))
        self.pcf_ctl = PeerCtl(f"{tmp}/pcf.sock")
        self.af = subprocess.Popen(
            [f"{build}/af_peer", "--identity", "af.test.local", "--peer", "pcf.test.local",
             "--peer-port", str(port), "--ctl", f"{tmp}/af.sock", "--events", f"{tmp}/af.events"]
            + common + list(af_extra), stderr=open(f"{tmp}/af.err", "a"))
        self.af_ctl = PeerCtl(f"{tmp}/af.sock")
        assert self.af_ctl("wait-peer timeout=10000")["ok"], "AF did not connect to the PCF"

    def stop(self):
        for ctl, proc in ((self.af_ctl, self.af), (self.pcf_ctl, self.pcf)):
            try:
                ctl("quit")
            except OSError:
                pass
            reap(proc)
        return self.af.returncode, self.pcf.returncode


failures = []


def check(name, cond, detail=None):
    print(("PASS " if cond else "FAIL ") + name + ("" if cond or detail is None else f"  -- {detail}"))
    if not cond:
        failures.append(name)


def events(path, **match):
    out = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if all(d.get(k) == v for k, v in match.items()):
                out.append(d)
    return out


def listening_ports():
    """(address, port) of listening TCP sockets, from /proc/net/tcp."""
    res = set()
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            if parts[3] != "0A":
                continue
            ip_hex, port_hex = parts[1].split(":")
            ip = socket.inet_ntoa(bytes.fromhex(ip_hex)[::-1])
            res.add((ip, int(port_hex, 16)))
    return res


def code_of(reply):
    return reply.get("code")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--port", type=int, default=3895)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rxpeer-selftest-")
    print(f"# logs in {tmp}")

    p = Peers(args.build_dir, args.port, tmp)
    af, pcf = p.af_ctl, p.pcf_ctl
    try:
        lp = listening_ports()
        check("pcf listens on 127.0.0.1 only", ("127.0.0.1", args.port) in lp and ("0.0.0.0", args.port) not in lp, lp)

        # --- AAR-I / AAR-U / STR -------------------------------------------------------------
        r = af("aar-i ip=10.45.0.7 called-station=ims ip-domain=dom1 sub=sip:alice@ims.test actions=2,4")
        check("AAR-I answered 2001", r.get("status") == "answer" and code_of(r) == 2001, r)
        sid = r["session_id"]
        aaa = r.get("record", {})
        check("AAA is Rx, P flag, Auth-Application-Id", aaa.get("app") == RX_APP and aaa.get("flags") == "P"
              and aaa.get("auth_application_id") == RX_APP, aaa)
        check("AAA carries freeDiameter's local Route-Record (pitfall 3)",
              aaa.get("route_record_local") == "pcf.test.local" and aaa.get("route_record") == [], aaa)
        aar = events(f"{tmp}/pcf.events", type="recv", session_id=sid, kind="aar-i")
        check("PCF recorded the AAR-I", len(aar) == 1, aar)
        if aar:
            a = aar[0]
            check("AAR fields decoded", a["framed_ip"] == "10.45.0.7" and a["called_station_id"] == "ims"
                  and a["ip_domain_id"] == "dom1" and a["specific_action"] == [2, 4]
                  and a["subscription_id"] == [{"type": 2, "data": "sip:alice@ims.test"}]
                  and a["media_components"][0]["sub_components"][0]["flow_number"] == 1
                  and a["flags"] == "RP" and a["rx_request_type"] == 0, a)
            check("AAR avps list", {"code": 517, "vendor": 10415} in a["avps"] and a["avps"][0] == {"code": 263, "vendor": 0}, a["avps"])
        r = af(f"aar-u session={sid}")
        check("AAR-U answered 2001, PCF saw aar-u", code_of(r) == 2001
              and len(events(f"{tmp}/pcf.events", type="recv", session_id=sid, kind="aar-u")) == 1, r)
        r = af("aar-i ipv6=2001:db8:1:2::/64")
        v6 = events(f"{tmp}/pcf.events", type="recv", session_id=r.get("session_id"))
        check("AAR-I IPv6 prefix", code_of(r) == 2001 and v6 and v6[0].get("framed_ipv6_prefix") == "2001:db8:1:2::/64", v6)
        sid6 = r.get("session_id")

        # --- RAR / ASR from the PCF -------------------------------------------------------------
        r = pcf(f"rar session={sid} action=1,4")
        check("RAR answered 2001 by the AF", r.get("status") == "answer" and code_of(r) == 2001, r)
        rar = events(f"{tmp}/af.events", type="recv", kind="rar", session_id=sid)
        check("AF recorded RAR with Specific-Action", rar and rar[0]["specific_action"] == [1, 4]
              and rar[0]["destination_host"] == "af.test.local", rar)
        af("answer cmd=rar exp=5068 count=1")
        r = pcf(f"rar session={sid}")
        check("AF answers RAR with Experimental-Result 5068 once", code_of(r) == 5068
              and r["record"].get("experimental_result") == {"vendor_id": 10415, "code": 5068}, r)
        r = pcf(f"rar session={sid}")
        check("then back to 2001", code_of(r) == 2001, r)
        r = pcf("rar session=unknown;1;1 dest-host=af.test.local dest-realm=test.local")
        check("RAR for an unknown session: 5002", code_of(r) == 5002, r)
        af("set auto-str=1")
        r = pcf(f"asr session={sid6} abort-cause=1")
        check("ASR answered 2001", code_of(r) == 2001, r)
        time.sleep(0.3)
        check("AF sent STR after ASR (auto-str)",
              len(events(f"{tmp}/pcf.events", type="recv", kind="str", session_id=sid6)) == 1)
        af("set auto-str=0")

        # --- STR ------------------------------------------------------------------------------
        r = af(f"str session={sid}")
        check("STR answered 2001", code_of(r) == 2001, r)
        r = af(f"str session={sid}")
        check("STR again: 5002 unknown session", code_of(r) == 5002, r)

        # --- configured answers ---------------------------------------------------------------
        pcf("answer cmd=aar-i exp=5065 count=1")
        r = af("aar-i ip=10.45.0.8")
        check("AAA with only Experimental-Result 5065 is accepted (pitfall 1 fixed)",
              code_of(r) == 5065 and "result_code" not in r.get("record", {}), r)
        pcf("answer cmd=str rc=3002 count=1")
        sid2 = af("aar-i ip=10.45.0.9")["session_id"]
        r = af(f"str session={sid2}")
        check("3002 answer has E and P bits", code_of(r) == 3002 and r["record"].get("flags") == "PE", r)
        pcf("answer cmd=aar delay=300 count=1")
        r = af("aar-i ip=10.45.0.10")
        check("delayed answer (300 ms)", code_of(r) == 2001 and r.get("latency_ms", 0) >= 290, r)
        pcf("answer cmd=aar drop count=1")
        r = af("aar-i ip=10.45.0.11 timeout=800")
        check("never answered: timeout", r.get("status") == "timeout" and r.get("record", {}).get("type") == "no_answer", r)
        r = af("aar-i ip=10.45.0.12 wait=0")
        check("async send returns at once", r.get("status") == "sent", r)
        time.sleep(0.3)
        check("async answer recorded",
              len(events(f"{tmp}/af.events", type="recv", label="aar-i", session_id=r["session_id"])) == 1)

        # --- malformed requests ---------------------------------------------------------------
        expect = {
            "no-session": 5005,          # freeDiameter: DIAMETER_MISSING_AVP, Failed-AVP Session-Id
            "no-framed": 5065,           # pcf_peer validation: IP-CAN_SESSION_NOT_AVAILABLE
            "unknown-app": 3007,         # freeDiameter: DIAMETER_APPLICATION_UNSUPPORTED (E bit)
            "app-avp-mismatch": 5004,    # pcf_peer validation: INVALID_AVP_VALUE
            "ip-len": 5014,              # pcf_peer validation: INVALID_AVP_LENGTH
        }
        for kind, want in expect.items():
            r = af(f"bad kind={kind}")
            check(f"malformed {kind}: {want}", code_of(r) == want, r)
        fd_errs = events(f"{tmp}/pcf.events", type="fd_event", event="parsing_error")
        check("PCF reported freeDiameter's parsing error", any(e.get("reason") == "DIAMETER_MISSING_AVP" for e in fd_errs), fd_errs)

        # --- status ---------------------------------------------------------------------------
        st = pcf("status")
        check("status", st.get("ok") and st["peers"][0]["state"] == "STATE_OPEN" and st["outstanding"] == 0, st)
    finally:
        codes = p.stop()
    check("both peers exit 0", codes == (0, 0), codes)

    # --- an answer that freeDiameter discards (NASREQ rules kept on the AF: pitfall 1 + 4) ------
    p = Peers(args.build_dir, args.port, tmp, af_extra=["--nasreq-rules"])
    try:
        r = p.af_ctl("aar-i ip=10.45.1.1")
        check("discarded answer reported as 'dropped' at once", r.get("status") == "dropped"
              and r.get("latency_ms", 9999) < 1000, r)
    finally:
        p.stop()

    for name in ("pcf.events", "af.events"):
        with open(f"{tmp}/{name}") as f:
            lines = f.readlines()
        bad = 0
        for line in lines:
            try:
                json.loads(line)
            except ValueError:
                bad += 1
        check(f"{name}: {len(lines)} lines, all valid JSON", bad == 0)

    print(f"# {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
