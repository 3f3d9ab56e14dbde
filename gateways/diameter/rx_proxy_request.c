/* The Rx proxy's request entry: a received request is read, checked, routed and forwarded, or
 * answered by the gateway (rx_proxy_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/operational_state.h"
#include "gateways/diameter/rx_proxy_internal.h"

/* The transaction and the view of a request: header fields, the AVPs of one walk, Session-Id,
 * the kind and the session it belongs to. */
static void request_read(bsf_rx_proxy_t *px, struct msg *msg, const struct msg_hdr *hdr,
                         rx_tx_t *tx, rx_req_view_t *v)
{
    tx->code = hdr->msg_code;
    tx->app = hdr->msg_appl;
    tx->hbh = hdr->msg_hbhid;
    tx->e2e = hdr->msg_eteid;
    tx->flags = hdr->msg_flags & (CMD_FLAG_PROXIABLE);
    /* One walk over the AVPs (Rx-Request-Type only in an AAR). */
    bsf_rx_avp_collect(msg, px->req_wants,
                       hdr->msg_code == BSF_RX_CMD_AA ? W_REQUEST_COUNT : W_RX_REQUEST_TYPE,
                       v->avp, v->avp_rc);
    if (hdr->msg_code != BSF_RX_CMD_AA) {
        v->avp[W_RX_REQUEST_TYPE] = NULL;
        v->avp_rc[W_RX_REQUEST_TYPE] = ENOENT;
    }
    v->sid_rc = v->avp_rc[W_SESSION_ID];
    if (v->sid_rc == 0)
        v->sid_rc = bsf_rx_avp_copy_text(v->avp[W_SESSION_ID], v->sid, sizeof v->sid);
    else
        v->sid[0] = '\0';
    int32_t rrt = BSF_RX_REQUEST_TYPE_NONE;
    if (v->avp_rc[W_RX_REQUEST_TYPE] == 0)
        rrt = bsf_rx_avp_i32(v->avp[W_RX_REQUEST_TYPE]);
    v->known = v->sid_rc == 0 && bsf_rx_sessions_get(&px->sessions, v->sid, strlen(v->sid),
                                                     tx->arrived_ns, &v->sess);
    tx->kind = bsf_rx_kind_classify(hdr->msg_code, rrt, v->known);
}

/* Congestion control (seed §3.26): whether the request may be processed. The priority AVPs
 * are looked for only while the node is congested. */
static bool admitted(bsf_rx_proxy_t *px, struct msg *msg, bsf_rx_kind_t kind)
{
    if (bsf_rx_cong_monitor_state(px->congestion) == BSF_RX_CONG_NORMAL)
        return true;
    struct avp *a = NULL;
    int drmp = -1;
    int64_t oc = -1;
    if (px->rx->drmp && bsf_rx_avp_find(msg, px->rx->drmp, &a) == 0)
        drmp = bsf_rx_avp_i32(a);
    if (px->rx->oc_priority && bsf_rx_avp_find(msg, px->rx->oc_priority, &a) == 0)
        oc = bsf_rx_avp_u32(a);
    return bsf_rx_cong_monitor_admit(px->congestion, kind, drmp, oc);
}

/* DiameterIdentity AVPs over BSF_RX_PX_IDENTITY_LEN_MAX bytes: 1 with *res (5004, Failed-AVP the
 * offending AVP as received), else 0. */
static int identity_too_long(bsf_rx_proxy_t *px, const rx_req_view_t *v, bsf_rx_result_t *res)
{
    static const int checked[] = {W_ORIGIN_HOST, W_ORIGIN_REALM, W_DEST_HOST, W_DEST_REALM};
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        int w = checked[i];
        const uint8_t *data = NULL;
        size_t len = 0;
        if (v->avp_rc[w] != 0)
            continue;
        bsf_rx_avp_os(v->avp[w], &data, &len);
        if (len <= BSF_RX_PX_IDENTITY_LEN_MAX)
            continue;
        *res = bsf_rx_proxy_rc(RC_INVALID_AVP_VALUE, "a DiameterIdentity longer than 255 bytes");
        res->failed_model = px->req_wants[w].model;
        res->failed_data = data;
        res->failed_len = len;
        return 1;
    }
    return 0;
}

/* The checks before routing, in the order their answers take precedence. Returns 0, or 1 with
 * *res. Fills the destination of the view and tx's Session-Id. */
static int request_check(bsf_rx_proxy_t *px, struct msg *msg, rx_tx_t *tx, rx_req_view_t *v,
                         bsf_rx_result_t *res)
{
    const bsf_rx_dict_t *rx = px->rx;
    /* Seed §3.39: PARTIAL refuses AAR-I, COMPLETE and a stop everything. */
    bsf_opverdict_t ov = bsf_opstate_check(tx->kind == BSF_RX_AAR_I ? BSF_OPREQ_NEW_SESSION
                                                                    : BSF_OPREQ_IN_SESSION);
    if (ov != BSF_OPVERDICT_ADMIT) {
        bsf_opstate_count_refusal(BSF_OPIF_DIAMETER);
        *res = bsf_rx_proxy_rc(bsf_opstate_diameter_result(),
                               ov == BSF_OPVERDICT_STOPPING ? "the BSF is shutting down"
                                                            : "controlled shutdown");
        return 1;
    }
    if (!admitted(px, msg, tx->kind)) {
        uint32_t code, vendor;
        bsf_rx_cong_monitor_answer(px->congestion, &code, &vendor);
        *res = bsf_rx_proxy_rc(code, "the BSF is congested");
        res->vendor = vendor;
        return 1;
    }
    if (v->sid_rc == ENOENT || v->sid_rc == EBADMSG) {
        *res = bsf_rx_proxy_rc(RC_MISSING_AVP, "no Session-Id");
        res->failed_model = rx->session_id;
        return 1;
    }
    if (v->sid_rc) {
        *res = bsf_rx_proxy_rc(RC_INVALID_AVP_VALUE, "Session-Id too long");
        return 1;
    }
    v->sid_len = strlen(v->sid);
    if (identity_too_long(px, v, res))
        return 1;
    struct avp *a = v->avp[W_AUTH_APP_ID];
    if (v->avp_rc[W_AUTH_APP_ID] == 0 && bsf_rx_avp_u32(a) != BSF_RX_APP_ID) {
        *res = bsf_rx_proxy_rc(RC_INVALID_AVP_VALUE, "Auth-Application-Id is not Rx (16777236)");
        res->failed_model = rx->auth_application_id;
        res->failed_u32 = true;
        res->failed_u32_value = bsf_rx_avp_u32(a);
        return 1;
    }
    if (atomic_load(&px->draining)) {
        *res = bsf_rx_proxy_rc(RC_TOO_BUSY, "the BSF is shutting down");
        return 1;
    }
    if (v->avp_rc[W_DEST_REALM] != 0 ||
        bsf_rx_avp_copy_text(v->avp[W_DEST_REALM], v->dest_realm, sizeof v->dest_realm) != 0)
        v->dest_realm[0] = '\0';
    if (v->avp_rc[W_DEST_HOST] != 0 ||
        bsf_rx_avp_copy_text(v->avp[W_DEST_HOST], v->dest_host, sizeof v->dest_host) != 0)
        v->dest_host[0] = '\0';
    if (!(tx->sid = malloc(v->sid_len))) {
        *res = bsf_rx_proxy_rc(RC_TOO_BUSY, "out of memory");
        return 1;
    }
    memcpy(tx->sid, v->sid, v->sid_len);
    tx->sid_len = v->sid_len;
    return 0;
}

/* A request from a connection the gateway does not trust (a certificate that does not name
 * its peer: being disconnected) is dropped unanswered. */
static bool source_trusted(bsf_rx_proxy_t *px, struct msg *msg, rx_tx_t *tx)
{
    DiamId_t from = NULL;
    size_t from_len = 0;
    if (fd_msg_source_get(msg, &from, &from_len) != 0 || !from)
        return true;
    if (!bsf_rx_connections_trusted(px->connections, from, from_len))
        return false;
    if (tx)
        bsf_rx_identity_copy(tx->from, from, from_len);
    return true;
}

void bsf_rx_proxy_handle_request(bsf_rx_proxy_t *px, struct msg **pmsg)
{
    uint64_t arrived = bsf_rx_proxy_now_ns();
    struct msg_hdr *hdr = NULL;
    bsf_rx_result_t r;
    if (fd_msg_hdr(*pmsg, &hdr) != 0 || !source_trusted(px, *pmsg, NULL)) {
        if (hdr)
            bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_DROPPED);
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        return;
    }
    rx_tx_t *tx = NULL;
    int verdict = 1;
    if (hdr->msg_appl != BSF_RX_APP_ID) {
        bsf_rx_metrics_count_inbound(px->metrics, BSF_RX_OTHER);
        r = bsf_rx_proxy_rc(RC_APPLICATION_UNSUPPORTED, "the BSF relays Rx (16777236) only");
    } else if (!(tx = bsf_rx_proxy_tx_new())) {
        r = bsf_rx_proxy_rc(RC_TOO_BUSY, "out of memory");
    } else {
        rx_req_view_t view;
        tx->arrived_ns = arrived;
        source_trusted(px, *pmsg, tx);
        request_read(px, *pmsg, hdr, tx, &view);
        /* The lines written while this thread handles the request name its session. */
        bsf_log_set_correlation(view.sid);
        bsf_rx_metrics_count_inbound(px->metrics, tx->kind);
        verdict = request_check(px, *pmsg, tx, &view, &r);
        if (verdict == 0)
            verdict = bsf_rx_proxy_route(px, tx, *pmsg, &view, &r);
        int first = verdict == 0 ? bsf_rx_proxy_route_first(px, tx, &r) : -1;
        if (first >= 0) {
            struct msg *m = *pmsg;
            *pmsg = NULL;
            bsf_rx_proxy_send_attempt(px, tx, m, first, false);
            bsf_log_set_correlation(NULL);
            return;
        }
    }
    bsf_rx_proxy_answer(px, tx ? tx->kind : BSF_RX_OTHER, pmsg, NULL, &r, arrived);
    bsf_rx_proxy_tx_free(tx);
    bsf_log_set_correlation(NULL);
}
