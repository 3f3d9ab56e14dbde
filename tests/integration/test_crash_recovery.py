"""kill -9 in the middle of concurrent registrations, restart on the same store, then:

- every registration answered 201 is discoverable by its address, with every member equal,
  and its history holds its registration;
- every registration that never got an answer is either fully there or fully absent:
  discovery finds it exactly when the history of its address holds a registration;
- answers other than 201 had no effect;
- the active session count equals the number of discoverable bindings;
- rebuilding the projection from the log gives the live digest.
"""

import queue
import threading

from support import LOCATION, Ue, binding, discover, describe, found, new_pcf_id

CONNECTIONS = 4
THREADS_PER_CONNECTION = 4
KILL_AFTER = 200            # 201 answers seen before the kill
REQUESTS = 5000             # more than can be sent before the kill
NO_EFFECT_STATUSES = (500, 503, 507)


class Load:
    """Worker threads posting registrations until the server goes away."""

    def __init__(self, server):
        self.bodies = queue.Queue()
        self.outcomes = {}          # index -> ("answer", response) or ("no answer", error)
        self.lock = threading.Lock()
        self.created = 0
        self.enough = threading.Event()
        self.killed = threading.Event()
        self.clients = [server.new_client() for _ in range(CONNECTIONS)]
        self.sent = []
        for index in range(REQUESTS):
            ue = Ue()
            body = binding(ipv4Addr=ue.ipv4, supi=ue.supi, pcfId=new_pcf_id())
            self.sent.append(body)
            self.bodies.put(index)
        self.threads = [threading.Thread(target=self.work, args=(self.clients[i % CONNECTIONS],))
                        for i in range(CONNECTIONS * THREADS_PER_CONNECTION)]

    def work(self, client):
        while True:
            try:
                index = self.bodies.get_nowait()
            except queue.Empty:
                return
            try:
                resp = client.post("/pcfBindings", json=self.sent[index])
            except Exception as error:      # any transport failure: this one got no answer
                with self.lock:
                    self.outcomes[index] = ("no answer", error)
                # before the kill a failure is a slow answer on a loaded machine (a client
                # timeout): go on, or a few of them starve the load of registrations
                if self.killed.is_set():
                    return
                continue
            with self.lock:
                self.outcomes[index] = ("answer", resp)
                if resp.status_code == 201:
                    self.created += 1
                    if self.created >= KILL_AFTER:
                        self.enough.set()

    def start(self):
        for thread in self.threads:
            thread.start()

    def join(self):
        for thread in self.threads:
            thread.join(timeout=60)
            assert not thread.is_alive(), "a load thread hangs"
        for client in self.clients:
            client.close()


def test_kill_9_under_load_loses_nothing_acknowledged(bsfd_factory):
    server = bsfd_factory()
    load = Load(server)
    load.start()
    try:
        assert load.enough.wait(timeout=120), f"only {load.created} registrations in 120 s"
    finally:
        load.killed.set()
        server.kill9()
        load.join()
    server.start()
    client = server.client

    created, unanswered, refused = [], [], []
    for index, (kind, outcome) in sorted(load.outcomes.items()):
        if kind == "no answer":
            unanswered.append(index)
        elif outcome.status_code == 201:
            created.append((index, outcome))
        else:
            assert outcome.status_code in NO_EFFECT_STATUSES, describe(outcome)
            refused.append(index)
    print(f"{len(created)} acknowledged, {len(unanswered)} without answer, {len(refused)} refused")
    assert len(created) >= KILL_AFTER

    ids = set()
    for index, resp in created:
        binding_id = LOCATION.fullmatch(resp.headers["location"]).group(1)
        ids.add(binding_id)
        body = load.sent[index]
        assert resp.json() == body
        assert found(client, ipv4Addr=body["ipv4Addr"]) == body, f"acknowledged binding {binding_id} lost"
        registered = [e for e in server.history(binding=binding_id) if e["type"] == "BindingRegistered"]
        assert len(registered) == 1 and registered[0]["binding"] == body, registered
    assert len(ids) == len(created), "two registrations got the same id"

    present = 0
    for index in unanswered + refused:
        body = load.sent[index]
        resp = discover(client, ipv4Addr=body["ipv4Addr"])
        assert resp.status_code in (200, 204), describe(resp)
        events = server.history(ue_addr=body["ipv4Addr"])
        registered = [e for e in events if e["type"] == "BindingRegistered"]
        if resp.status_code == 200:
            assert index in unanswered, f"a {load.outcomes[index][1].status_code} answer had an effect"
            assert resp.json() == body
            assert len(registered) == 1 and registered[0]["binding"] == body, events
            present += 1
        else:
            assert resp.content == b""
            assert registered == [], f"history has a registration that discovery does not find: {events}"

    print(f"{present} of those without answer are present")
    assert server.count() == len(created) + present
    rebuilt = server.workdir / "rebuilt"
    rebuilt.mkdir()
    out = server.bsfctl("rebuild", "--out", rebuilt).stdout
    assert server.digest() in out
