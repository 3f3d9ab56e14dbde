/* The Rx proxy's worker thread: requests to route again, the gateway's own deadline for what
 * libfdcore lost (pitfall 4), session expiry and congestion samples (rx_proxy_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/deadline.h"
#include "common/diag.h"
#include "common/fifo.h"
#include "gateways/diameter/rx_proxy_internal.h"

#define SWEEP_PERIOD_MS 200

int bsf_rx_proxy_queue_reroute(bsf_rx_proxy_t *px, struct msg *msg)
{
    rx_reroute_t *rr = malloc(sizeof *rr);
    if (!rr)
        return ENOMEM;
    rr->msg = msg;
    pthread_mutex_lock(&px->mu);
    bsf_fifo_push(&px->reroutes, &rr->link);
    pthread_cond_signal(&px->cv);
    pthread_mutex_unlock(&px->mu);
    return 0;
}

static void reroute(bsf_rx_proxy_t *px, struct msg *msg)
{
    rx_tx_t *tx = bsf_rx_pending_take(&px->pending, bsf_rx_proxy_handle_of(msg));
    if (!tx) {
        fd_msg_free(msg);
        return;
    }
    int next = bsf_rx_proxy_pick_open(tx);
    if (next >= 0) {
        bsf_rx_proxy_send_attempt(px, tx, msg, next, true);
        return;
    }
    bsf_rx_result_t r =
        bsf_rx_proxy_rc(RC_UNABLE_TO_DELIVER, "no connected peer towards the destination");
    bsf_rx_proxy_answer(px, tx->kind, &msg, NULL, &r, tx->arrived_ns);
    bsf_rx_proxy_tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

static void sweep(bsf_rx_proxy_t *px)
{
    uint64_t now = bsf_rx_proxy_now_ns();
    void *lost[256];
    size_t n;
    while ((n = bsf_rx_pending_take_expired(&px->pending, now, lost, 256)) > 0) {
        for (size_t i = 0; i < n; i++) {
            rx_tx_t *tx = lost[i];
            bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_LOST);
            BSF_WARN("diameter", "%s to %s: no outcome from freeDiameter, answering 3002",
                     bsf_rx_kind_name(tx->kind), tx->cand[tx->current]);
            bsf_rx_result_t r = bsf_rx_proxy_rc(RC_UNABLE_TO_DELIVER, "no answer from the next hop");
            bsf_rx_proxy_answer(px, tx->kind, NULL, tx, &r, tx->arrived_ns);
            bsf_rx_proxy_tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
        }
        if (n < 256)
            break;
    }
    bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_EXPIRED,
                                 bsf_rx_sessions_expire(&px->sessions, now));
}

/* Called with px->mu held; returns with it held. */
static void drain_reroutes(bsf_rx_proxy_t *px)
{
    bsf_fifo_link_t *l;
    while ((l = bsf_fifo_pop(&px->reroutes))) {
        rx_reroute_t *rr = BSF_FIFO_ENTRY(l, rx_reroute_t, link);
        pthread_mutex_unlock(&px->mu);
        reroute(px, rr->msg);
        free(rr);
        pthread_mutex_lock(&px->mu);
    }
}

void *bsf_rx_proxy_worker_main(void *arg)
{
    bsf_rx_proxy_t *px = arg;
    pthread_mutex_lock(&px->mu);
    while (!bsf_worker_stopping(&px->worker)) {
        drain_reroutes(px);
        pthread_mutex_unlock(&px->mu);
        sweep(px);
        uint32_t wait_ms = bsf_rx_cong_monitor_tick(px->congestion, bsf_rx_proxy_now_ns(),
                                                    bsf_rx_pending_count(&px->pending));
        if (wait_ms > SWEEP_PERIOD_MS)
            wait_ms = SWEEP_PERIOD_MS;
        pthread_mutex_lock(&px->mu);
        if (bsf_worker_stopping(&px->worker) || !bsf_fifo_empty(&px->reroutes))
            continue;
        bsf_cond_wait_ms(&px->cv, &px->mu, wait_ms);
    }
    pthread_mutex_unlock(&px->mu);
    return NULL;
}
