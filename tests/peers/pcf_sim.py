"""A test PCF answering the BSF's binding audit queries (seed §3.34), on HTTP/2 over loopback.

The BSF asks a PCF whether it still has the session of a binding with a GET of the
notificationUrl the PCF gave at registration (`vendorSpecific-000111`). The sim is strict to
TS 29.500 for what the BSF sends (GET, no body, User-Agent `BSF-<nfInstanceId>`,
3gpp-Sbi-Sender-Timestamp, 3gpp-Sbi-Max-Rsp-Time, 3gpp-Sbi-Callback) and answers per session
(the last path segment) or by default:

    found      200 with an empty JSON object
    not_found  404 ProblemDetails (cause CONTEXT_NOT_FOUND)
    unavailable 503 ProblemDetails (cause NF_CONGESTION) with Retry-After
    hang       never answers (the BSF's query deadline runs out)

Every answer carries `server: PCF-<nfInstanceId>` (TS 29.500 §5.2.3.2.x) so the BSF can tell
PCFs apart. An optional Nnrf_NFDiscovery endpoint (`DiscoverySim`) lists the PCFs of a set,
its SearchResult validated against TS29510_Nnrf_NFDiscovery.yaml.

    pcf = PcfSim().start(); url = pcf.url("sess-1"); pcf.mode = "not_found"; pcf.queries

`PcfSim(prefix="/site2/pcf")` serves under that apiPrefix (TS 29.501 §4.4.1: its apiRoot is
http://127.0.0.1:port/site2/pcf, and the discovery sim publishes it as the NFService's
apiPrefix): a request whose path does not begin with it is a violation.
Anything wrong with a request is in pcf.violations (a test asserts it empty).
"""

import asyncio
import json
import pathlib
import sys
import threading
import time
import urllib.parse
import uuid as uuid_mod

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import h2_peer  # noqa: E402
import openapi  # noqa: E402

PATH = "/npcf-custom-binding/v1/sessions/"
MODES = ("found", "not_found", "unavailable", "hang")


class PcfSim(h2_peer.LoopSim):
    def __init__(self, mode="found", instance_id=None, prefix=""):
        assert mode in MODES
        assert prefix == "" or (prefix.startswith("/") and not prefix.endswith("/"))
        self.prefix = prefix
        self.mode = mode
        self.modes = {}                 # session -> mode (overrides `mode`)
        self.instance_id = instance_id or str(uuid_mod.uuid4())
        self.queries = []               # (monotonic, session, headers dict)
        self.violations = []
        self.answer_priority = None     # 3gpp-Sbi-Message-Priority of the answers (None: none)
        self.lock = threading.Lock()
        self._loop = h2_peer.ServerLoop(self._handle)

    @property
    def api_root(self):
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def url(self, session):
        return f"{self.api_root}{PATH}{session}"

    def queries_of(self, session):
        with self.lock:
            return [q for q in self.queries if q[1] == session]

    def _check(self, req):
        bad = []
        if req.method != "GET":
            bad.append(f"method {req.method}")
        if req.body:
            bad.append("a body on GET")
        bad += h2_peer.request_header_errors(req)
        if req.header("3gpp-sbi-callback") != "Nbsf_Management_myNotification":
            bad.append(f"3gpp-Sbi-Callback {req.header('3gpp-sbi-callback')!r}")
        return bad

    async def _handle(self, req):
        status, headers, body = await self._answer(req)
        return status, h2_peer.with_message_priority(headers, self.answer_priority), body

    async def _answer(self, req):
        path = req.path.partition("?")[0]
        server = [("server", f"PCF-{self.instance_id}")]
        full = self.prefix + PATH
        if not path.startswith(full) or "/" in path[len(full):]:
            headers, body = h2_peer.problem(404, "RESOURCE_URI_STRUCTURE_NOT_FOUND")
            with self.lock:
                self.violations.append(f"path {path} (the apiRoot is {self.api_root})")
            return 404, server + headers, body
        session = urllib.parse.unquote(path[len(full):])
        with self.lock:
            self.queries.append((time.monotonic(), session, dict(req.headers)))
            self.violations += [f"{session}: {b}" for b in self._check(req)]
            mode = self.modes.get(session, self.mode)
        if mode == "hang":
            await asyncio.sleep(3600)
        if mode == "found":
            return 200, server + [("content-type", "application/json")], b"{}"
        if mode == "not_found":
            headers, body = h2_peer.problem(404, "CONTEXT_NOT_FOUND", "no such session")
            return 404, server + headers, body
        headers, body = h2_peer.problem(503, "NF_CONGESTION", "busy")
        return 503, server + headers + [("retry-after", "1")], body


class DiscoverySim(h2_peer.LoopSim):
    """Nnrf_NFDiscovery (TS 29.510 §5.3.2.2) for PCFs by NF set: GET
    /nnrf-disc/v1/nf-instances?target-nf-type=PCF&requester-nf-type=BSF&target-nf-set-id=S.

    Strict: the query string is validated against the GET /nf-instances parameters of
    TS29510_Nnrf_NFDiscovery.yaml (unknown, repeated or missing required parameters, values
    against their schemas: a violation is answered 400 and recorded), the TS 29.500 headers
    are checked, and every SearchResult answered is validated against its schema.
    `validity` is the SearchResult's validityPeriod (s); `fail` an HTTP status answered to
    everything. A PCF with an apiPrefix is published with it in its NFService, in
    nfServiceList (the map of TS 29.510 Rel-16 on) when `service_list`, else nfServices."""

    API = "TS29510_Nnrf_NFDiscovery.yaml"

    def __init__(self):
        openapi.validator("SearchResult", self.API)
        self.sets = {}       # set id -> [PcfSim]
        self.priorities = {}  # PcfSim instance id -> NFProfile priority
        # 3gpp-Sbi-Message-Priority a discovery must carry (seed 3.1's NRF default: 1)
        self.message_priority = "1"
        self.requests = []
        self.violations = []
        self.fail = None     # an HTTP status answered to everything
        self.validity = 60
        self.service_list = False
        self._loop = h2_peer.ServerLoop(self._handle)

    @property
    def uri(self):
        return f"http://127.0.0.1:{self.port}"

    def searches(self):
        return [q for m, p, q in self.requests if p == "/nnrf-disc/v1/nf-instances"]

    def profile(self, pcf, set_id):
        service = {"serviceInstanceId": "sm-1", "serviceName": "npcf-smpolicycontrol",
                   "versions": [{"apiVersionInUri": "v1", "apiFullVersion": "1.0.0"}],
                   "scheme": "http", "nfServiceStatus": "REGISTERED",
                   "ipEndPoints": [{"ipv4Address": "127.0.0.1", "port": pcf.port}]}
        if pcf.prefix:
            service["apiPrefix"] = pcf.prefix
        p = {"nfInstanceId": pcf.instance_id, "nfType": "PCF", "nfStatus": "REGISTERED",
             "nfSetIdList": [set_id], "ipv4Addresses": ["127.0.0.1"]}
        if self.service_list:
            p["nfServiceList"] = {"sm-1": service}
        else:
            p["nfServices"] = [service]
        if pcf.instance_id in self.priorities:
            p["priority"] = self.priorities[pcf.instance_id]
        return p

    def _check(self, req, pairs):
        problems = openapi.query_errors(pairs, "/nf-instances", "GET", self.API)
        problems += h2_peer.request_header_errors(req)
        problems += h2_peer.message_priority_errors(req, self.message_priority)
        if req.body:
            problems.append("a discovery GET carries no body")
        q = dict(pairs)
        if q.get("target-nf-type") != "PCF" or q.get("requester-nf-type") != "BSF":
            problems.append(f"query {q}")
        return problems

    async def _handle(self, req):
        path, _, query = req.path.partition("?")
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        q = dict(pairs)
        self.requests.append((req.method, path, q))
        if req.method != "GET" or path != "/nnrf-disc/v1/nf-instances":
            headers, body = h2_peer.problem(404, "RESOURCE_URI_STRUCTURE_NOT_FOUND")
            return 404, headers, body
        problems = self._check(req, pairs)
        if problems:
            self.violations += problems
            missing = any("missing" in p for p in problems)
            headers, body = h2_peer.problem(400, "MANDATORY_QUERY_PARAM_MISSING" if missing
                                            else "INVALID_QUERY_PARAM", "; ".join(problems))
            return 400, headers, body
        if self.fail:
            headers, body = h2_peer.problem(self.fail, "SYSTEM_FAILURE")
            return self.fail, headers, body
        set_id = q.get("target-nf-set-id", "")
        result = {"validityPeriod": self.validity,
                  "nfInstances": [self.profile(p, set_id) for p in self.sets.get(set_id, [])]}
        openapi.validate(result, "SearchResult", self.API)
        return 200, [("content-type", "application/json")], json.dumps(result).encode()


if __name__ == "__main__":  # standalone, for the C tests: PCFs of one set and a discovery NRF
    import argparse
    import os
    ap = argparse.ArgumentParser()
    ap.add_argument("--info-file", required=True)
    ap.add_argument("--set", default="set1.pcfset.5gc.mnc001.mcc001")
    ap.add_argument("--pcfs", type=int, default=3)
    args = ap.parse_args()
    pcfs = [PcfSim().start() for _ in range(args.pcfs)]
    disc = DiscoverySim().start()
    disc.sets[args.set] = pcfs
    info = {"discovery": disc.uri, "pcfs": [{"id": p.instance_id, "port": p.port}
                                            for p in pcfs]}
    with open(args.info_file + ".tmp", "w") as f:
        json.dump(info, f)
    os.rename(args.info_file + ".tmp", args.info_file)
    try:
        while True:  # violations end the run with status 1 at SIGTERM
            time.sleep(0.2)
            if disc.violations or any(p.violations for p in pcfs):
                print(disc.violations, [p.violations for p in pcfs], flush=True)
                os._exit(1)
    except KeyboardInterrupt:
        pass
