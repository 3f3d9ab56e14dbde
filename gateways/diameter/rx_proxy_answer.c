/* The answers the gateway makes itself: one function sends all of them (rx_proxy_internal.h). */
#include <string.h>
#include <time.h>

#include "common/diag.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_proxy_internal.h"
#include "common/error.h"

bool bsf_rx_proxy_neighbour_connected(bsf_rx_proxy_t *px, const char *id, size_t len)
{
    struct peer_hdr *peer = NULL;
    if (!id || !len)
        return true;
    if (!bsf_rx_connections_trusted(px->connections, id, len))
        return false;
    if (fd_peer_getbyid((DiamId_t)id, len, 1, &peer) != 0 || !peer)
        return false;
    int state = fd_peer_get_state(peer);
    return state == STATE_OPEN || state == STATE_SUSPECT || state == STATE_REOPEN;
}

static void drop_answer_to_departed(bsf_rx_proxy_t *px, bsf_rx_kind_t kind, const char *to,
                                    size_t to_len, uint32_t code)
{
    bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_DROPPED);
    BSF_DEBUG("diameter", "%s answer %u not sent: %.*s has left", bsf_rx_kind_name(kind), code,
              (int)to_len, to);
}

/* From the request itself: it becomes the answer. */
static void answer_msg(bsf_rx_proxy_t *px, bsf_rx_kind_t kind, struct msg **pmsg,
                       const bsf_rx_result_t *res, uint64_t arrived_ns)
{
    DiamId_t from = NULL;
    size_t from_len = 0;
    if (fd_msg_source_get(*pmsg, &from, &from_len) == 0 &&
        !bsf_rx_proxy_neighbour_connected(px, from, from_len)) {
        drop_answer_to_departed(px, kind, from, from_len, res->code);
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        return;
    }
    int rc = bsf_rx_avp_make_answer(px->rx, pmsg, res);
    if (rc == 0) {
        /* Counted before the send, as relayed answers are: whoever got the answer finds it in
         * the metrics. */
        bsf_rx_metrics_count_local(px->metrics, kind, res->code);
        bsf_rx_metrics_observe_latency(px->metrics, kind, bsf_rx_proxy_now_ns() - arrived_ns);
        rc = fd_msg_send(pmsg, NULL, NULL);
    }
    if (rc) {
        BSF_WARN("diameter", "cannot answer a %s with %u: %s", bsf_rx_kind_name(kind), res->code,
                 bsf_strerror(rc));
        if (*pmsg)
            fd_msg_free(*pmsg);
        *pmsg = NULL;
    }
}

/* From the reference kept in tx (the request is not ours any more). */
static void answer_ref(bsf_rx_proxy_t *px, const rx_tx_t *tx, const bsf_rx_result_t *res)
{
    if (!bsf_rx_proxy_neighbour_connected(px, tx->from, strlen(tx->from))) {
        drop_answer_to_departed(px, tx->kind, tx->from, strlen(tx->from), res->code);
        return;
    }
    bsf_rx_request_ref_t ref = {tx->code, tx->app, tx->hbh, tx->e2e, tx->flags,
                                tx->sid,  tx->sid_len, tx->from};
    bsf_rx_metrics_count_local(px->metrics, tx->kind, res->code); /* before: see answer_msg */
    int rc = bsf_rx_avp_answer_ref(px->rx, &ref, res);
    if (rc)
        BSF_WARN("diameter", "cannot answer a %s to %s: %s", bsf_rx_kind_name(tx->kind), tx->from,
                 bsf_strerror(rc));
}

void bsf_rx_proxy_answer(bsf_rx_proxy_t *px, bsf_rx_kind_t kind, struct msg **req,
                         const rx_tx_t *tx, const bsf_rx_result_t *res, uint64_t arrived_ns)
{
    if (req && *req)
        answer_msg(px, kind, req, res, arrived_ns);
    else if (tx)
        answer_ref(px, tx, res);
}
