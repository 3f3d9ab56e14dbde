/* The Rx proxy's forwarding: sending a request to its chosen peer, the next hop's answer, the
 * answer timer, routing-out and libfdcore's events (rx_proxy_internal.h). */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/deadline.h"
#include "common/diag.h"
#include "gateways/diameter/rx_binding.h"
#include "gateways/diameter/rx_capabilities.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_peer_addr.h"
#include "gateways/diameter/rx_proxy_internal.h"
#include "gateways/diameter/rx_thread_name.h"
#include "common/error.h"

#define LOST_GRACE_NS 1000000000ull /* our deadline: freeDiameter's timer + 1 s */

/* ---- transactions ---------------------------------------------------------------------- */

rx_tx_t *bsf_rx_proxy_tx_new(void)
{
    rx_tx_t *tx = malloc(sizeof *tx);
    if (!tx)
        return NULL;
    /* the identity buffers are written before they are read */
    tx->kind = BSF_RX_OTHER;
    tx->code = tx->app = tx->hbh = tx->e2e = 0;
    tx->flags = 0;
    tx->arrived_ns = 0;
    tx->sid = NULL;
    tx->sid_len = 0;
    tx->from[0] = tx->dest_host[0] = '\0';
    tx->n_cand = 0;
    memset(tx->tried, 0, sizeof tx->tried);
    tx->current = 0;
    tx->retries = 0;
    tx->retry_cause = 0;
    tx->has_binding = false;
    memset(&tx->binding_id, 0, sizeof tx->binding_id);
    tx->opened_session = false;
    return tx;
}

void bsf_rx_proxy_tx_free(rx_tx_t *tx)
{
    if (tx) {
        free(tx->sid);
        free(tx);
    }
}

/* The Destination-Host a retry put in the request (UpdateDestinationHost), or NULL. */
static const char *moved_host(const bsf_rx_proxy_t *px, const rx_tx_t *tx)
{
    return tx->retries > 0 && px->s.update_destination_host ? tx->cand[tx->current] : NULL;
}

void bsf_rx_proxy_tx_finish(bsf_rx_proxy_t *px, rx_tx_t *tx, uint32_t code)
{
    bool ok = bsf_rx_proxy_is_success(code);
    switch (tx->kind) {
    case BSF_RX_AAR_I:
        if (ok)
            bsf_rx_sessions_set_pcf(&px->sessions, tx->sid, tx->sid_len, tx->cand[tx->current],
                                    moved_host(px, tx));
        else if (tx->opened_session &&
                 bsf_rx_sessions_remove(&px->sessions, tx->sid, tx->sid_len))
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_CLOSED, 1);
        break;
    case BSF_RX_AAR_U:
        if (ok)
            bsf_rx_sessions_set_pcf(&px->sessions, tx->sid, tx->sid_len, tx->cand[tx->current],
                                    moved_host(px, tx));
        break;
    case BSF_RX_STR:
        /* The AF forgets the session after its STA, whatever the result. */
        if (bsf_rx_sessions_remove(&px->sessions, tx->sid, tx->sid_len))
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_CLOSED, 1);
        break;
    case BSF_RX_ASR:
        if (ok)
            bsf_rx_sessions_end(&px->sessions, tx->sid, tx->sid_len, bsf_rx_proxy_now_ns());
        break;
    default:
        break;
    }
    bsf_rx_metrics_observe_latency(px->metrics, tx->kind, bsf_rx_proxy_now_ns() - tx->arrived_ns);
    bsf_rx_proxy_tx_free(tx);
}

/* ---- sending --------------------------------------------------------------------------- */

static void on_answer_marker(void *data, struct msg **ans);
static void on_expire(void *data, DiamId_t sentto, size_t sentto_len, struct msg **req);

/* The requester of tx gets `code` from us; tx is finished. */
static void fail_attempt(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg **msg, uint32_t code,
                         const char *why)
{
    bsf_rx_result_t r = bsf_rx_proxy_rc(code, why);
    bsf_rx_proxy_answer(px, tx->kind, msg, NULL, &r, tx->arrived_ns);
    bsf_rx_proxy_tx_finish(px, tx, code);
}

/* libfdcore's answer timer (wall clock, as fd_msg_send_timeout wants). */
static struct timespec answer_deadline(uint32_t timeout_ms)
{
    return bsf_timespec_after_ns(CLOCK_REALTIME, (uint64_t)timeout_ms * 1000000u);
}

void bsf_rx_proxy_send_attempt(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, int index,
                               bool resend)
{
    tx->current = (size_t)index;
    tx->tried[index] = true;
    /* The chosen peer is the request's only routing candidate: libfdcore neither builds the
     * list of every open peer nor falls back to another one. */
    int rc = fd_msg_anscb_reset(msg, 1, 1);
    if (rc == 0)
        rc = bsf_rx_node_route_to(msg, tx->cand[index]);
    if (rc) {
        fail_attempt(px, tx, &msg, RC_UNABLE_TO_DELIVER, "the next hop is not connected");
        return;
    }
    if (resend) {
        struct msg_hdr *hdr = NULL;
        if (tx->retry_cause && fd_msg_hdr(msg, &hdr) == 0)
            hdr->msg_flags |= CMD_FLAG_RETRANSMIT;
        if (tx->retry_cause && px->s.update_destination_host)
            bsf_rx_avp_set_os(msg, px->rx->destination_host, tx->cand[index],
                              strlen(tx->cand[index]));
    }
    uint32_t timeout = bsf_rx_kind_timeout_ms(&px->s, tx->kind);
    struct timespec deadline = answer_deadline(timeout);
    uint64_t lost_at = bsf_rx_proxy_now_ns() + (uint64_t)timeout * 1000000ull + LOST_GRACE_NS;
    uintptr_t handle = bsf_rx_pending_add(&px->pending, tx, lost_at);
    if (!handle) {
        fail_attempt(px, tx, &msg, RC_TOO_BUSY, "too many requests in flight");
        return;
    }
    bsf_rx_metrics_count_network(px->metrics, tx->kind, tx->retry_cause);
    /* From here another thread may complete tx at any time: do not touch it on success. */
    rc = fd_msg_send_timeout(&msg, on_answer_marker, (void *)handle, on_expire, &deadline);
    if (rc == 0)
        return;
    if (bsf_rx_pending_take(&px->pending, handle) != tx)
        return; /* cannot happen: nothing was queued */
    BSF_WARN("diameter", "cannot forward a %s: %s", bsf_rx_kind_name(tx->kind), bsf_strerror(rc));
    fail_attempt(px, tx, &msg, RC_UNABLE_TO_DELIVER, "cannot forward the request");
}

uintptr_t bsf_rx_proxy_handle_of(struct msg *req)
{
    void (*cb)(void *, struct msg **) = NULL;
    void *data = NULL;
    if (!req || fd_msg_anscb_get(req, &cb, NULL, &data) != 0 || cb != on_answer_marker)
        return 0;
    return (uintptr_t)data;
}

/* Never called for a relayed request (libfdcore calls answer callbacks of local requests
 * only); registered so that the request carries our handle. */
static void on_answer_marker(void *data, struct msg **ans)
{
    (void)data;
    (void)ans;
}

/* ---- the next hop's answer, the timer -------------------------------------------------- */

int bsf_rx_proxy_on_fwd_answer(void *cbdata, struct msg **pmsg)
{
    bsf_rx_proxy_t *px = cbdata;
    struct msg *q = NULL;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_IN);
    if (!*pmsg || fd_msg_answ_getq(*pmsg, &q) != 0 || !q)
        return 0;
    uintptr_t handle = bsf_rx_proxy_handle_of(q);
    if (!handle)
        return 0;
    rx_tx_t *tx = bsf_rx_pending_take(&px->pending, handle);
    if (!tx) {
        /* The requester was already answered (our deadline passed): drop this one. */
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        return 0;
    }
    bsf_rx_answer_info_t info;
    bsf_rx_avp_answer_info(px->rx, *pmsg, &info);
    bsf_rx_metrics_count_response(px->metrics, tx->kind, tx->retries > 0, info.code);
    if ((tx->kind == BSF_RX_AAR_I || tx->kind == BSF_RX_AAR_U) && tx->has_binding &&
        bsf_rx_code_set_match(&px->stale_codes, info.code))
        bsf_rx_binding_remove_stale(px->engine, &tx->binding_id, px->metrics);
    bsf_rx_outcome_t o = {false, info.code,
                          bsf_rx_retry_originator(tx->dest_host, info.origin, info.e_bit)};
    int next = bsf_rx_proxy_is_success(info.code) ? -1 : bsf_rx_proxy_pick_retry(px, tx, &o);
    if (next >= 0 && fd_msg_answ_detach(*pmsg) == 0) {
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        tx->retries++;
        tx->retry_cause = info.code ? info.code : RC_UNABLE_TO_COMPLY;
        bsf_rx_proxy_send_attempt(px, tx, q, next, true);
        return 0;
    }
    bsf_rx_avp_strip_local_route_record(px->rx, *pmsg, tx->cand[tx->current]);
    bsf_rx_proxy_tx_finish(px, tx, info.code);
    return 0; /* libfdcore relays the answer to the requester */
}

/* libfdcore's answer timer (a detached thread of its own). */
static void on_expire(void *data, DiamId_t sentto, size_t sentto_len, struct msg **req)
{
    (void)sentto;
    (void)sentto_len;
    bsf_rx_proxy_t *px = bsf_rx_proxy_instance;
    if (!px || !req || !*req)
        return;
    rx_tx_t *tx = bsf_rx_pending_take(&px->pending, (uintptr_t)data);
    if (!tx)
        return; /* already completed; libfdcore frees the request */
    bsf_rx_metrics_count_timeout(px->metrics, tx->kind);
    struct msg *m = *req;
    *req = NULL;
    bsf_rx_outcome_t o = {true, 0, BSF_RX_ORIGINATOR_ANY};
    int next = bsf_rx_proxy_pick_retry(px, tx, &o);
    if (next >= 0) {
        tx->retries++;
        tx->retry_cause = BSF_RX_RETRY_TIMEOUT;
        bsf_rx_proxy_send_attempt(px, tx, m, next, true);
        return;
    }
    BSF_INFO("diameter", "%s to %s: no answer in %u ms", bsf_rx_kind_name(tx->kind),
             tx->cand[tx->current], bsf_rx_kind_timeout_ms(&px->s, tx->kind));
    fail_attempt(px, tx, &m, RC_UNABLE_TO_DELIVER, "no answer from the next hop in time");
}

/* ---- the feed's binding, routing-out --------------------------------------------------- */

/* Under the pending table's lock: the binding that routed a request. */
typedef struct {
    bool has;
    bsf_binding_id_t id;
} rx_binding_copy_t;

static void copy_binding(void *txp, void *ctx)
{
    const rx_tx_t *tx = txp;
    rx_binding_copy_t *out = ctx;
    out->has = tx->has_binding;
    out->id = tx->binding_id;
}

bool bsf_rx_proxy_request_binding(void *px, struct msg *request, bsf_binding_id_t *out)
{
    bsf_rx_proxy_t *p = px;
    uintptr_t handle = bsf_rx_proxy_handle_of(request);
    rx_binding_copy_t copy = {false, {{0}}};
    if (!handle || !bsf_rx_pending_peek(&p->pending, handle, copy_binding, &copy) || !copy.has)
        return false;
    *out = copy.id;
    return true;
}

/* Under the pending table's lock: the peer chosen for a request. */
static void copy_target(void *txp, void *ctx)
{
    const rx_tx_t *tx = txp;
    bsf_rx_identity_copy(ctx, tx->cand[tx->current], SIZE_MAX);
}

/* Only the peer the proxy chose may get the request. */
int bsf_rx_proxy_on_rt_out(void *cbdata, struct msg **pmsg, struct fd_list *candidates)
{
    bsf_rx_proxy_t *px = cbdata;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_OUT);
    uintptr_t handle = bsf_rx_proxy_handle_of(*pmsg);
    if (!handle)
        return 0;
    char target[BSF_RX_IDENTITY_MAX] = "";
    if (!bsf_rx_pending_peek(&px->pending, handle, copy_target, target)) {
        fd_msg_free(*pmsg); /* completed meanwhile (our deadline): nobody waits for it */
        *pmsg = NULL;
        return 0;
    }
    size_t tlen = strlen(target);
    /* A neighbour that is closing can still be a candidate; libfdcore would then fail to
     * send to it and lose the request: it goes to the worker instead. */
    bool found = false, usable = bsf_rx_proxy_neighbour_connected(px, target, tlen);
    for (struct fd_list *li = candidates->next; li != candidates && usable; li = li->next) {
        struct rtd_candidate *c = (struct rtd_candidate *)li;
        if (!found && c->diamidlen == tlen && strncasecmp(c->diamid, target, tlen) == 0) {
            c->score = FD_SCORE_FINALDEST * 10;
            found = true;
        } else {
            c->score = FD_SCORE_NO_DELIVERY;
        }
    }
    /* The chosen peer went away: the worker picks another one (this thread must not block
     * on libfdcore's outgoing queue, which it drains). Out of memory: libfdcore answers 3002
     * itself and the routing-error hook completes tx. */
    if (!found && bsf_rx_proxy_queue_reroute(px, *pmsg) == 0)
        *pmsg = NULL;
    return 0;
}

/* ---- libfdcore's events ---------------------------------------------------------------- */

static void on_connected(bsf_rx_proxy_t *px, struct peer_hdr *peer, const char *pid)
{
    bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_CONNECTED);
    if (px->s.tcp_nodelay && peer) {
        int sock = bsf_rx_peer_socket(peer), one = 1;
        if (sock < 0 || setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
            BSF_WARN("diameter", "peer %s: cannot set TCP_NODELAY", pid);
        else
            BSF_DEBUG("diameter", "peer %s: TCP_NODELAY set", pid);
    }
    BSF_INFO("diameter", "peer %s connected", pid);
}

/* A message libfdcore could not route or dropped: completes its transaction. */
static void on_lost_message(bsf_rx_proxy_t *px, enum fd_hook_type type, struct msg *msg,
                            void *other)
{
    bsf_rx_metrics_count_event(px->metrics, type == HOOK_MESSAGE_DROPPED ? BSF_RX_EV_DROPPED
                                                                          : BSF_RX_EV_ROUTING_ERROR);
    struct msg_hdr *hdr = NULL;
    if (!msg || fd_msg_hdr(msg, &hdr) != 0)
        return;
    struct msg *req = msg;
    if (!(hdr->msg_flags & CMD_FLAG_REQUEST) && (fd_msg_answ_getq(msg, &req) != 0 || !req))
        return;
    uintptr_t handle = bsf_rx_proxy_handle_of(req);
    rx_tx_t *tx = handle ? bsf_rx_pending_take(&px->pending, handle) : NULL;
    if (!tx)
        return;
    BSF_DEBUG("diameter", "%s: %s", bsf_rx_kind_name(tx->kind), other ? (const char *)other : "");
    if (type == HOOK_MESSAGE_ROUTING_ERROR && (hdr->msg_flags & CMD_FLAG_REQUEST)) {
        /* libfdcore answers 3002 to the requester itself right after this hook. */
        bsf_rx_metrics_count_local(px->metrics, tx->kind, RC_UNABLE_TO_DELIVER);
    } else if (hdr->msg_flags & CMD_FLAG_REQUEST) {
        bsf_rx_result_t r = bsf_rx_proxy_rc(RC_UNABLE_TO_DELIVER, "the request was dropped");
        bsf_rx_proxy_answer(px, tx->kind, NULL, tx, &r, tx->arrived_ns);
    }
    /* A dropped answer: its requester is gone (closed connection); nothing to answer. */
    bsf_rx_proxy_tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

void bsf_rx_proxy_on_hook(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                          void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
    bsf_rx_proxy_t *px = regdata;
    (void)pmd;
    const char *pid = peer ? peer->info.pi_diamid : "?";
    switch (type) {
    case HOOK_MESSAGE_PARSING_ERROR:
    case HOOK_MESSAGE_PARSING_ERROR2:
        bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_PARSING_ERROR);
        BSF_DEBUG("diameter", "parsing error from %s: %s", pid,
                  msg && other ? (const char *)other : "unparsable message");
        return;
    case HOOK_MESSAGE_FAILOVER:
        bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_FAILOVER);
        return;
    case HOOK_PEER_CONNECT_FAILED:
        bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_CONNECT_FAILED);
        BSF_DEBUG("diameter", "peer %s: %s", pid, other ? (const char *)other : "failed");
        return;
    case HOOK_PEER_CONNECT_SUCCESS:
        on_connected(px, peer, pid);
        return;
    case HOOK_MESSAGE_ROUTING_ERROR:
    case HOOK_MESSAGE_DROPPED:
        on_lost_message(px, type, msg, other);
        return;
    default:
        return;
    }
}

/* Per-message hooks: our identity in CER/CEA (rx_capabilities.h), and naming the thread (the sender's first routable
 * message: before it, the peer thread may send CEA / DWA itself). libfdcore's default ones
 * format every message under a global lock (pitfall 5). */
void bsf_rx_proxy_on_hook_empty(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                                void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
    const bsf_rx_proxy_t *px = regdata;
    (void)peer;
    (void)other;
    (void)pmd;
    if (type == HOOK_MESSAGE_SENDING && msg &&
        bsf_rx_capabilities_rewrite(msg, px->s.vendor_id) != 0)
        BSF_WARN("diameter", "cannot set Vendor-Id and Product-Name in a CER/CEA");
    if (type == HOOK_DATA_RECEIVED)
        bsf_rx_thread_name(BSF_RX_THREAD_RECEIVER);
    else if (type == HOOK_MESSAGE_RECEIVED)
        bsf_rx_thread_name(BSF_RX_THREAD_PEER);
    else if (type == HOOK_MESSAGE_SENT && msg && fd_msg_is_routable(msg))
        bsf_rx_thread_name(BSF_RX_THREAD_SENDER);
}
