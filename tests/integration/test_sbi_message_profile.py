"""Seed 3.1's message priority profile (admission.message_priority_profile) on a real bsfd
over HTTP/2 loopback: the evaluated priority is what admission control sheds by (the state
comes from held requests, as in test_sbi_admission.py), and answers carry the priority the
rule assigns. The audit's requests to PCFs carry the priority of their rule, and seed 3.1's
metrics count them and the PCFs' answers (the BSF as consumer)."""
from support import binding, metrics, new_pcf_id, register, Ue, wait_until
from test_audit import FAST as AUDIT, PcfSim, audited_binding
from test_sbi_admission import ADMISSION, STATES, Holder, assert_shed, state

RULES = ";".join([
    "messageID=reg,rulePriority=1,interfaceType=Nbsf_Management,messageType=Register,"
    "requestPriorityOverride=IfNotPresent,requestPriorityValue=26,"
    "responsePriorityAssign=IfNotPresent,responsePriorityValue=12",
    "messageID=all,rulePriority=2,interfaceType=Nbsf_Management,messageType=Any,"
    "requestPriorityOverride=Always,requestPriorityValue=3,"
    "responsePriorityAssign=Always,responsePriorityValue=3",
])


def post(server, priority=None):
    h = {} if priority is None else {"3gpp-sbi-message-priority": str(priority)}
    return server.client.post("/pcfBindings", json=binding(pcfId=new_pcf_id(), ipv4Addr=Ue().ipv4),
                              headers=h)


def get(server, priority=None):
    h = {} if priority is None else {"3gpp-sbi-message-priority": str(priority)}
    return server.client.get("/pcfBindings", params={"ipv4Addr": "10.9.9.9"}, headers=h)


def test_profile_sets_request_and_answer_priorities(bsfd_factory):
    server = bsfd_factory(dict(ADMISSION, **{"admission.message_priority_profile": RULES}))
    # NORMAL: nothing shed; the answers carry what the rules assign
    resp = post(server, priority=8)
    assert resp.status_code == 201 and resp.headers["3gpp-sbi-message-priority"] == "8"
    resp = post(server)
    assert resp.status_code == 201 and resp.headers["3gpp-sbi-message-priority"] == "12"
    resp = get(server, priority=30)
    assert resp.status_code == 204 and resp.headers["3gpp-sbi-message-priority"] == "3"
    # L1 discards priorities >= 24
    holder = Holder(server.sbi_port, 4)
    wait_until(lambda: state(server) == STATES["L1"], what="state L1")
    resp = post(server)  # IfNotPresent: 26 instead of register's default 20: shed
    assert_shed(resp, state_name="L1")
    assert resp.headers["3gpp-sbi-message-priority"] == "12"  # the shed answer carries it too
    assert post(server, priority=5).status_code == 201  # present: kept
    assert get(server, priority=30).status_code == 204  # Always 3: never shed in L1
    holder.close()
    wait_until(lambda: state(server) == 0, what="state NORMAL")
    m = metrics(server)
    series = ('ocbsf_http_message_priority_request_count_total{{direction="in",rcvd_priority="{}",'
              'eval_priority="{}",interface_type="Nbsf_Management",msg_type="{}"}}')
    assert m[series.format(8, 8, "Register")] == 1
    assert m[series.format("NA", 26, "Register")] == 2  # IfNotPresent, twice
    assert m[series.format(5, 5, "Register")] == 1
    assert m[series.format(30, 3, "Discovery")] == 2  # Always
    # seed 3.1's response counts: by the priority the answer carries, operation, status
    answers = ('ocbsf_http_message_priority_response_count_total{{direction="out",'
               'rcvd_priority="NA",eval_priority="{}",interface_type="Nbsf_Management",'
               'msg_type="{}",response_code="{}"}}')
    assert m[answers.format(8, "Register", 201)] == 1
    assert m[answers.format(12, "Register", 201)] == 1
    assert m[answers.format(12, "Register", 503)] == 1  # the shed one
    assert m[answers.format(5, "Register", 201)] == 1
    assert m[answers.format(3, "Discovery", 204)] == 2
    assert sum(v for k, v in m.items()
               if k.startswith('ocbsf_http_message_priority_response_count_total{direction="out"')) == 6


def test_no_profile_no_header(bsfd_factory):
    server = bsfd_factory(ADMISSION)
    resp = post(server, priority=8)
    assert resp.status_code == 201
    assert "3gpp-sbi-message-priority" not in resp.headers
    holder = Holder(server.sbi_port, 4)
    wait_until(lambda: state(server) == STATES["L1"], what="state L1")
    assert_shed(get(server, priority=30), state_name="L1")  # the header as received
    holder.close()
    m = metrics(server)
    answers = ('ocbsf_http_message_priority_response_count_total{{direction="out",'
               'rcvd_priority="NA",eval_priority="NA",interface_type="Nbsf_Management",'
               'msg_type="{}",response_code="{}"}}')
    assert m[answers.format("Register", 201)] == 1
    assert m[answers.format("Discovery", 503)] == 1


AUDIT_RULE = ("messageID=DEFAULT_AUDIT_ALWAYS,rulePriority=1,interfaceType=Npcf_Binding_Audit,"
              "messageType=Audit_Notify,requestPriorityOverride=Always,requestPriorityValue=10;")
# (the ';' makes one rule of it: a list without one is split at its commas)
AUDIT_OUT = ('ocbsf_http_message_priority_request_count_total{direction="out",rcvd_priority="NA",'
             'eval_priority="10",interface_type="Npcf_Binding_Audit",msg_type="Audit_Notify"}')
AUDIT_IN = ('ocbsf_http_message_priority_response_count_total{{direction="in",rcvd_priority="{0}",'
            'eval_priority="{0}",interface_type="Npcf_Binding_Audit",msg_type="Audit_Notify",'
            'response_code="200"}}')


def test_audit_requests_and_their_answers_are_counted(bsfd_factory):
    """Seed 3.1 acceptance 4 (Audit_Notify Always 10: the query to the PCF carries 10) and
    the metrics: each query direction out (rcvd_priority NA: the audit has none before the
    profile), each answer direction in with the PCF's own 3gpp-Sbi-Message-Priority."""
    pcf = PcfSim().start()
    try:
        pcf.answer_priority = "7"
        server = bsfd_factory(dict(AUDIT, **{"admission.message_priority_profile": AUDIT_RULE}))
        register(server.client, audited_binding(pcf, "alive"))

        def answered():  # every query sent has its answer counted
            m = metrics(server)
            return m if m.get(AUDIT_OUT, 0) >= 1 and m.get(AUDIT_IN.format(7)) == m[AUDIT_OUT] \
                else None
        m = wait_until(answered, what="an audit query and its answer counted")
        assert {q[2].get("3gpp-sbi-message-priority") for q in pcf.queries_of("alive")} == {"10"}
        assert len(pcf.queries_of("alive")) >= m[AUDIT_OUT]
        assert AUDIT_IN.format("NA") not in m
        assert not pcf.violations, pcf.violations
    finally:
        pcf.close()


def test_a_bad_profile_is_refused_at_start(tmp_path):
    from conftest import refused_at_start
    refused_at_start(tmp_path, {"admission.message_priority_profile":
                                "messageType=Register,requestPriorityOverride=Always"},
                     "admission.message_priority_profile")
