"""The SBI server and the Rx gateway share one congestion state (issue 14 §1): requests held
on one front end make the other shed by its own priorities."""
from rx_support import metric, rx_lab, wait_until  # noqa: F401 (fixture)
from support import Ue, binding, new_pcf_id
from test_rx_congestion import CONGESTION
from test_sbi_admission import Holder, assert_shed, INSTANCE

SHARED = {**CONGESTION,
          "nf.instance_id": INSTANCE,
          "congestion.receiving_thresholds": "2;4;6;8",
          "congestion.cpu_thresholds": "97;98;99;100",
          "congestion.memory_thresholds": "",
          "sbi.body_timeout_s": 60}


def state(lab):
    return metric(lab.bsfd, "ocbsf_admission_state")


def post(lab, priority):
    return lab.bsfd.client.post("/pcfBindings",
                                json=binding(pcfId=new_pcf_id(), ipv4Addr=Ue().ipv4),
                                headers={"3gpp-sbi-message-priority": str(priority)})


def test_sbi_pending_requests_make_rx_shed(rx_lab):
    lab = rx_lab(settings=SHARED)
    ues = [Ue() for _ in range(2)]
    for ue in ues:
        lab.register(ue)
    sid = lab.aar_i(ip=ues[0].ipv4)["session_id"]
    holder = Holder(lab.bsfd.sbi_port, 2)
    wait_until(lambda: state(lab) == 1, what="the shared DOC state")
    assert metric(lab.bsfd, "ocbsf_diam_congestion_state") == 1
    # Rx's own rules: an AAR (priority 20) is discarded in DOC (20), an STR (6) passes
    assert lab.aar_i(ip=ues[1].ipv4)["code"] == 3004
    assert lab.af.cmd(f"str session={sid}")["code"] == 2001
    assert metric(lab.bsfd, "ocbsf_diam_congestion_discards_total", state="DOC") == 1
    assert metric(lab.bsfd, "ocbsf_diam_congestion_resource_state", resource="queue") == 0
    holder.close()
    wait_until(lambda: state(lab) == 0, what="NORMAL")
    assert lab.aar_i(ip=ues[1].ipv4)["code"] == 2001


def test_rx_pending_requests_make_the_sbi_shed(rx_lab):
    lab = rx_lab(settings=SHARED)
    ues = [Ue() for _ in range(3)]
    for ue in ues:
        lab.register(ue)
    lab.hold_aar_is(ues)  # queue threshold DOC = 3
    wait_until(lambda: state(lab) == 1, what="the shared DOC state")
    assert metric(lab.bsfd, "ocbsf_admission_resource_state", resource="diameter_queue") == 1
    assert_shed(post(lab, 30), state_name="DOC")  # the SBI's DOC discard priority is 30
    assert post(lab, 29).status_code == 201
    lab.pcf().kill()
    wait_until(lambda: state(lab) == 0, what="NORMAL")
    assert post(lab, 30).status_code == 201
