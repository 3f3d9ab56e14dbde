/* The Rx proxy: routing, forwarding, answers, timeouts and retries (see rx_proxy.h). */
#include "gateways/diameter/rx_proxy.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/diag.h"
#include "gateways/diameter/rx_avp.h"
#include "gateways/diameter/rx_binding.h"
#include "gateways/diameter/rx_congestion_monitor.h"
#include "gateways/diameter/rx_kind.h"
#include "gateways/diameter/rx_metrics.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_peer_addr.h"
#include "gateways/diameter/rx_pending.h"
#include "gateways/diameter/rx_realm.h"
#include "gateways/diameter/rx_retry.h"
#include "gateways/diameter/rx_routes.h"
#include "gateways/diameter/rx_sessions.h"
#include "gateways/diameter/rx_thread_name.h"
#include "gateways/diameter/rx_ue_addr.h"

#define MAX_CANDIDATES 8
#define LOST_GRACE_NS 1000000000ull /* our deadline: freeDiameter's timer + 1 s */
#define SWEEP_PERIOD_MS 200
#define SID_MAX 1024 /* longest Session-Id forwarded; longer ones get 5004 */

#define RC_SUCCESS 2001
#define RC_COMMAND_UNSUPPORTED 3001
#define RC_UNABLE_TO_DELIVER 3002
#define RC_REALM_NOT_SERVED 3003
#define RC_TOO_BUSY 3004
#define RC_APPLICATION_UNSUPPORTED 3007
#define RC_INVALID_AVP_VALUE 5004
#define RC_MISSING_AVP 5005
#define RC_UNABLE_TO_COMPLY 5012
#define RC_INVALID_AVP_LENGTH 5014

/* One forwarded request. */
typedef struct {
    bsf_rx_kind_t kind;
    uint32_t code, app, hbh, e2e;
    uint8_t flags;
    uint64_t arrived_ns;
    char *sid;
    size_t sid_len;
    char from[BSF_RX_IDENTITY_MAX];      /* neighbour the request came from */
    char dest_host[BSF_RX_IDENTITY_MAX]; /* destination (for the originator rule) */
    size_t n_cand;
    char cand[MAX_CANDIDATES][BSF_RX_IDENTITY_MAX];
    bool tried[MAX_CANDIDATES];
    size_t current;       /* candidate of the attempt in flight */
    unsigned retries;     /* retries made */
    uint32_t retry_cause; /* of the attempt in flight: 0, a result code or BSF_RX_RETRY_TIMEOUT */
    bool has_binding;
    bsf_binding_id_t binding_id;
    bool opened_session; /* an AAR-I that put its session in the table */
} rx_tx_t;

/* The AVPs a request is read for, found in one walk: the ones of every request (the Rx-Request-
 * Type of AARs last), then the UE address AVPs of an AAR-I. */
enum {
    W_SESSION_ID,
    W_AUTH_APP_ID,
    W_DEST_REALM,
    W_DEST_HOST,
    W_RX_REQUEST_TYPE,
    W_REQUEST_COUNT,
};
enum { W_FRAMED_IP, W_FRAMED_IPV6, W_IP_DOMAIN, W_CALLED_STATION, W_UE_COUNT };

/* A request libfdcore could not send to its chosen peer, waiting for the worker. */
typedef struct rx_reroute {
    struct rx_reroute *next;
    struct msg *msg;
} rx_reroute_t;

struct bsf_rx_proxy {
    bsf_diameter_settings_t s;
    const bsf_rx_dict_t *rx;
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_rx_routes_t routes;
    bsf_rx_code_set_t retry_codes, stale_codes;
    bsf_rx_pending_t pending;
    bsf_rx_sessions_t sessions;
    bsf_rx_metrics_t *metrics;
    bsf_rx_cong_monitor_t *congestion;
    bsf_rx_connections_t *connections; /* which neighbours' connections are trusted */
    atomic_bool draining;
    bsf_rx_avp_want_t req_wants[W_REQUEST_COUNT], ue_wants[W_UE_COUNT];

    pthread_mutex_t mu; /* the reroute queue and the worker's stop flag */
    pthread_cond_t cv;
    rx_reroute_t *q_head, *q_tail;
    bool stop;
    bool worker_started;
    pthread_t worker;
};

/* libfdcore's answer-timeout callback gets only the data pointer given with the request,
 * which carries the request's handle; the proxy itself is found here. One node per process
 * (libfdcore is a singleton), so one proxy. */
static bsf_rx_proxy_t *proxy_instance;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bsf_rx_result_t rc_result(uint32_t code, const char *message)
{
    bsf_rx_result_t r = {.code = code, .message = message};
    return r;
}

static bsf_rx_result_t exp_result(uint32_t code, const char *message)
{
    bsf_rx_result_t r = {.code = code, .vendor = BSF_RX_VENDOR_3GPP, .message = message};
    return r;
}

static bool is_success(uint32_t code)
{
    return code >= 2000 && code < 3000;
}

/* ---- answers made by the gateway ------------------------------------------------------- */

/* Whether the neighbour `id` has a connection (open, or open and under watchdog suspicion)
 * that is trusted (rx_connections.h). libfdcore 1.2.1 loses the memory of a message it cannot
 * send because the neighbour's connection is closing or gone (fd_out_send fails): such
 * messages are not handed to it. */
static bool neighbour_connected(bsf_rx_proxy_t *px, const char *id, size_t len)
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

/* Answers the request *pmsg (taken) with `res`. */
static void answer_local(bsf_rx_proxy_t *px, bsf_rx_kind_t kind, struct msg **pmsg,
                         const bsf_rx_result_t *res, uint64_t arrived_ns)
{
    DiamId_t from = NULL;
    size_t from_len = 0;
    if (fd_msg_source_get(*pmsg, &from, &from_len) == 0 && !neighbour_connected(px, from, from_len)) {
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
        bsf_rx_metrics_observe_latency(px->metrics, kind, mono_ns() - arrived_ns);
        rc = fd_msg_send(pmsg, NULL, NULL);
    }
    if (rc) {
        BSF_WARN("diameter", "cannot answer a %s with %u: %s", bsf_rx_kind_name(kind), res->code,
                 strerror(rc));
        if (*pmsg)
            fd_msg_free(*pmsg);
        *pmsg = NULL;
    }
}

/* Answers a request we no longer hold (dropped, or still inside libfdcore). */
static void answer_ref(bsf_rx_proxy_t *px, const rx_tx_t *tx, const bsf_rx_result_t *res)
{
    if (!neighbour_connected(px, tx->from, strlen(tx->from))) {
        drop_answer_to_departed(px, tx->kind, tx->from, strlen(tx->from), res->code);
        return;
    }
    bsf_rx_request_ref_t ref = {tx->code, tx->app, tx->hbh, tx->e2e, tx->flags,
                                tx->sid,  tx->sid_len, tx->from};
    bsf_rx_metrics_count_local(px->metrics, tx->kind, res->code); /* before: see answer_local */
    int rc = bsf_rx_avp_answer_ref(px->rx, &ref, res);
    if (rc)
        BSF_WARN("diameter", "cannot answer a %s to %s: %s", bsf_rx_kind_name(tx->kind), tx->from,
                 strerror(rc));
}

/* ---- transactions ---------------------------------------------------------------------- */

/* A transaction with nothing set (its identity buffers are written before they are read). */
static rx_tx_t *tx_new(void)
{
    rx_tx_t *tx = malloc(sizeof *tx);
    if (!tx)
        return NULL;
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

static void tx_free(rx_tx_t *tx)
{
    if (tx) {
        free(tx->sid);
        free(tx);
    }
}

static void cand_add(rx_tx_t *tx, const char *id)
{
    if (!id || !id[0] || tx->n_cand == MAX_CANDIDATES)
        return;
    for (size_t i = 0; i < tx->n_cand; i++)
        if (strcasecmp(tx->cand[i], id) == 0)
            return;
    bsf_rx_identity_copy(tx->cand[tx->n_cand++], id, SIZE_MAX);
}

static void cand_add_routes(bsf_rx_proxy_t *px, rx_tx_t *tx, const char *realm, const char *host)
{
    const char *peers[MAX_CANDIDATES];
    size_t n = bsf_rx_routes_select(&px->routes, realm, host && host[0] ? host : NULL, peers,
                                    MAX_CANDIDATES);
    for (size_t i = 0; i < n; i++)
        cand_add(tx, peers[i]);
}

/* First untried candidate that is connected, or -1. */
static int pick_first_open(rx_tx_t *tx)
{
    for (size_t i = 0; i < tx->n_cand; i++)
        if (!tx->tried[i] && bsf_rx_node_peer_open(tx->cand[i]))
            return (int)i;
    return -1;
}

static bsf_rx_retry_policy_t retry_policy(bsf_rx_proxy_t *px, bsf_rx_kind_t kind)
{
    bsf_rx_retry_policy_t p = {bsf_rx_kind_retry_enabled(&px->s, kind),
                               &px->retry_codes,
                               px->s.retry_on_timeout,
                               px->s.max_retries,
                               px->s.cycle_back,
                               (bsf_rx_originator_t)px->s.retry_originator};
    return p;
}

/* The candidate of the next retry (skipping peers that are not connected), or -1. */
static int pick_retry(bsf_rx_proxy_t *px, rx_tx_t *tx, const bsf_rx_outcome_t *o)
{
    bsf_rx_retry_policy_t pol = retry_policy(px, tx->kind);
    if (!bsf_rx_retry_wanted(&pol, o))
        return -1;
    size_t cur = tx->current;
    for (size_t guard = 0; guard < 2 * MAX_CANDIDATES + 2; guard++) {
        int i = bsf_rx_retry_next(&pol, tx->retries, tx->n_cand, tx->tried, cur);
        if (i < 0)
            return -1;
        if (bsf_rx_node_peer_open(tx->cand[i]))
            return i;
        tx->tried[i] = true;
        cur = (size_t)i;
    }
    return -1;
}

/* The Destination-Host a retry put in the request (UpdateDestinationHost), or NULL. */
static const char *moved_host(const bsf_rx_proxy_t *px, const rx_tx_t *tx)
{
    return tx->retries > 0 && px->s.update_destination_host ? tx->cand[tx->current] : NULL;
}

/* Session bookkeeping and metrics of a request whose requester got its answer (relayed, or
 * made by us with `local_code`). Frees tx. */
static void tx_finish(bsf_rx_proxy_t *px, rx_tx_t *tx, uint32_t code)
{
    switch (tx->kind) {
    case BSF_RX_AAR_I:
        if (is_success(code))
            bsf_rx_sessions_set_pcf(&px->sessions, tx->sid, tx->sid_len, tx->cand[tx->current],
                                    moved_host(px, tx));
        else if (tx->opened_session &&
                 bsf_rx_sessions_remove(&px->sessions, tx->sid, tx->sid_len))
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_CLOSED, 1);
        break;
    case BSF_RX_AAR_U:
        if (is_success(code))
            bsf_rx_sessions_set_pcf(&px->sessions, tx->sid, tx->sid_len, tx->cand[tx->current],
                                    moved_host(px, tx));
        break;
    case BSF_RX_STR:
        /* The AF forgets the session after its STA, whatever the result. */
        if (bsf_rx_sessions_remove(&px->sessions, tx->sid, tx->sid_len))
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_CLOSED, 1);
        break;
    case BSF_RX_ASR:
        if (is_success(code))
            bsf_rx_sessions_end(&px->sessions, tx->sid, tx->sid_len, mono_ns());
        break;
    default:
        break;
    }
    bsf_rx_metrics_observe_latency(px->metrics, tx->kind, mono_ns() - tx->arrived_ns);
    tx_free(tx);
}

static void on_answer_marker(void *data, struct msg **ans);
static void on_expire(void *data, DiamId_t sentto, size_t sentto_len, struct msg **req);

/* Sends `msg` (taken) to tx->cand[index]; on failure answers the requester. */
static void send_attempt(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, int index,
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
        bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "the next hop is not connected");
        answer_local(px, tx->kind, &msg, &r, tx->arrived_ns);
        tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
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
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout / 1000;
    deadline.tv_nsec += (long)(timeout % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    uint64_t lost_at = mono_ns() + (uint64_t)timeout * 1000000ull + LOST_GRACE_NS;
    uintptr_t handle = bsf_rx_pending_add(&px->pending, tx, lost_at);
    if (!handle) {
        bsf_rx_result_t r = rc_result(RC_TOO_BUSY, "too many requests in flight");
        answer_local(px, tx->kind, &msg, &r, tx->arrived_ns);
        tx_finish(px, tx, RC_TOO_BUSY);
        return;
    }
    bsf_rx_metrics_count_network(px->metrics, tx->kind, tx->retry_cause);
    /* From here another thread may complete tx at any time: do not touch it on success. */
    rc = fd_msg_send_timeout(&msg, on_answer_marker, (void *)handle, on_expire, &deadline);
    if (rc == 0)
        return;
    if (bsf_rx_pending_take(&px->pending, handle) != tx)
        return; /* cannot happen: nothing was queued */
    BSF_WARN("diameter", "cannot forward a %s: %s", bsf_rx_kind_name(tx->kind), strerror(rc));
    bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "cannot forward the request");
    answer_local(px, tx->kind, &msg, &r, tx->arrived_ns);
    tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

/* ---- requests -------------------------------------------------------------------------- */

/* What an incoming request says about its routing. */
typedef struct {
    char dest_host[BSF_RX_IDENTITY_MAX], dest_realm[BSF_RX_IDENTITY_MAX];
    char sid[SID_MAX];
    size_t sid_len;
    struct avp *avp[W_REQUEST_COUNT]; /* bsf_rx_avp_collect of px->req_wants */
    int avp_rc[W_REQUEST_COUNT];
} rx_req_view_t;

/* AAR-I: the binding decides the destination. Returns 0 to forward, or -1 when the request
 * was answered (taken). */
static int route_aar_i(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg **pmsg, rx_req_view_t *v)
{
    const bsf_rx_dict_t *rx = px->rx;
    bsf_rx_result_t r;
    /* seed §3.12 step 1, before any lookup */
    if (bsf_rx_realm_check_request(&px->s, v->dest_realm[0] ? v->dest_realm : NULL) !=
        BSF_RX_REALM_OK) {
        bsf_rx_metrics_count_realm_failed(px->metrics, BSF_RX_REALM_CHECK_OWN);
        r = rc_result(RC_REALM_NOT_SERVED, "Destination-Realm is not the BSF's realm");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    struct avp *u[W_UE_COUNT];
    int urc[W_UE_COUNT];
    bsf_rx_avp_collect(*pmsg, px->ue_wants, W_UE_COUNT, u, urc);
    int rc4 = urc[W_FRAMED_IP], rc6 = urc[W_FRAMED_IPV6];
    char dom[BSF_RX_IDENTITY_MAX] = "", dnn[BSF_RX_IDENTITY_MAX] = "";
    if (urc[W_IP_DOMAIN] == 0 && bsf_rx_avp_copy_text(u[W_IP_DOMAIN], dom, sizeof dom) != 0)
        dom[0] = '\0';
    if (urc[W_CALLED_STATION] == 0 &&
        bsf_rx_avp_copy_text(u[W_CALLED_STATION], dnn, sizeof dnn) != 0)
        dnn[0] = '\0';
    bsf_rx_ue_avps_t ue = {0};
    if (rc4 == 0)
        bsf_rx_avp_os(u[W_FRAMED_IP], &ue.ipv4, &ue.ipv4_len);
    if (rc6 == 0)
        bsf_rx_avp_os(u[W_FRAMED_IPV6], &ue.ipv6, &ue.ipv6_len);
    ue.ip_domain = dom;
    ue.dnn = dnn;
    if (rc4 == EBADMSG || (rc4 != 0 && rc6 == EBADMSG)) {
        r = rc_result(RC_INVALID_AVP_LENGTH, "the UE address AVP does not parse");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    bsf_discovery_query_t q;
    int bad6 = 0;
    bsf_rx_ue_verdict_t verdict = bsf_rx_ue_query_build(&ue, &q, &bad6);
    switch (verdict) {
    case BSF_RX_UE_OK:
        break;
    case BSF_RX_UE_MISSING:
        r = rc_result(RC_MISSING_AVP, "neither Framed-IP-Address nor Framed-IPv6-Prefix");
        r.failed_model = rx->framed_ip_address;
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    default: {
        bool len = verdict == BSF_RX_UE_BAD_LENGTH;
        r = rc_result(len ? RC_INVALID_AVP_LENGTH : RC_INVALID_AVP_VALUE,
                      bad6 ? "malformed Framed-IPv6-Prefix" : "Framed-IP-Address is not 4 octets");
        r.failed_model = bad6 ? rx->framed_ipv6_prefix : rx->framed_ip_address;
        r.failed_data = bad6 ? ue.ipv6 : ue.ipv4;
        r.failed_len = bad6 ? ue.ipv6_len : ue.ipv4_len;
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    }
    bsf_rx_binding_t b;
    bsf_rx_lookup_result_t lr =
        bsf_rx_binding_lookup(px->store, &q, px->s.pcf_cookie && rx->cookie, &b);
    bsf_rx_metrics_count_lookup(px->metrics, lr);
    if (lr == BSF_RX_LOOKUP_ERROR) {
        r = rc_result(RC_UNABLE_TO_COMPLY, "binding lookup failed");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    if (lr == BSF_RX_LOOKUP_NOT_FOUND) {
        r = exp_result(BSF_RX_EXP_IP_CAN_SESSION_NOT_AVAILABLE, "no binding for the UE address");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    bool overwrite = false;
    if (bsf_rx_realm_check_binding(&px->s, v->dest_realm[0] ? v->dest_realm : NULL,
                                   b.pcf_realm[0] ? b.pcf_realm : NULL,
                                   &overwrite) != BSF_RX_REALM_OK) {
        bsf_rx_binding_clear(&b);
        bsf_rx_metrics_count_realm_failed(px->metrics, BSF_RX_REALM_CHECK_BINDING);
        r = rc_result(RC_REALM_NOT_SERVED, "Destination-Realm is not the binding's realm");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    int rc = 0;
    if (overwrite)
        rc = bsf_rx_avp_replace_os(*pmsg, v->avp[W_DEST_REALM], rx->destination_realm,
                                   b.pcf_realm, strlen(b.pcf_realm));
    if (rc == 0 && b.pcf_host[0]) {
        /* The forwarded request names the binding's PCF, whatever path it takes. */
        rc = bsf_rx_avp_replace_os(*pmsg, v->avp[W_DEST_HOST], rx->destination_host, b.pcf_host,
                                   strlen(b.pcf_host));
        bsf_rx_identity_copy(tx->dest_host, b.pcf_host, SIZE_MAX);
    }
    if (rc == 0 && b.cookie && rx->cookie) {
        rc = bsf_rx_avp_set_os(*pmsg, rx->cookie, b.cookie, b.cookie_len);
        if (rc == 0)
            bsf_rx_metrics_count_cookie(px->metrics);
    }
    if (rc) {
        bsf_rx_binding_clear(&b);
        r = rc_result(RC_UNABLE_TO_COMPLY, "cannot rewrite the request");
        answer_local(px, tx->kind, pmsg, &r, tx->arrived_ns);
        return -1;
    }
    tx->has_binding = true;
    tx->binding_id = b.id;
    if (b.pcf_host[0]) {
        cand_add(tx, b.pcf_host);
        cand_add_routes(px, tx, b.pcf_realm[0] ? b.pcf_realm : v->dest_realm, b.pcf_host);
    } else {
        /* A binding without pcfDiamHost: the routing table for the request's destination. */
        bsf_rx_identity_copy(tx->dest_host, v->dest_host, SIZE_MAX);
        cand_add(tx, v->dest_host);
        cand_add_routes(px, tx, b.pcf_realm[0] ? b.pcf_realm : v->dest_realm, v->dest_host);
    }
    bsf_rx_binding_clear(&b);
    return 0;
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

/* Handles one request received by the node; always takes *pmsg. */
static void handle_request(bsf_rx_proxy_t *px, struct msg **pmsg)
{
    const bsf_rx_dict_t *rx = px->rx;
    uint64_t arrived = mono_ns();
    struct msg_hdr *hdr = NULL;
    bsf_rx_result_t r;
    if (fd_msg_hdr(*pmsg, &hdr) != 0) {
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        return;
    }
    DiamId_t from = NULL;
    size_t from_len = 0;
    if (fd_msg_source_get(*pmsg, &from, &from_len) == 0 && from &&
        !bsf_rx_connections_trusted(px->connections, from, from_len)) {
        /* a connection whose certificate does not name its peer: being disconnected */
        bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_DROPPED);
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        return;
    }
    if (hdr->msg_appl != BSF_RX_APP_ID) {
        bsf_rx_metrics_count_inbound(px->metrics, BSF_RX_OTHER);
        r = rc_result(RC_APPLICATION_UNSUPPORTED, "the BSF relays Rx (16777236) only");
        answer_local(px, BSF_RX_OTHER, pmsg, &r, arrived);
        return;
    }
    rx_tx_t *tx = tx_new();
    if (!tx) {
        r = rc_result(RC_TOO_BUSY, "out of memory");
        answer_local(px, BSF_RX_OTHER, pmsg, &r, arrived);
        return;
    }
    rx_req_view_t view, *v = &view;
    tx->arrived_ns = arrived;
    tx->code = hdr->msg_code;
    tx->app = hdr->msg_appl;
    tx->hbh = hdr->msg_hbhid;
    tx->e2e = hdr->msg_eteid;
    tx->flags = hdr->msg_flags & (CMD_FLAG_PROXIABLE);
    if (from)
        bsf_rx_identity_copy(tx->from, from, from_len);

    /* One walk over the AVPs (Rx-Request-Type only in an AAR). */
    bsf_rx_avp_collect(*pmsg, px->req_wants,
                       hdr->msg_code == BSF_RX_CMD_AA ? W_REQUEST_COUNT : W_RX_REQUEST_TYPE,
                       v->avp, v->avp_rc);
    if (hdr->msg_code != BSF_RX_CMD_AA) {
        v->avp[W_RX_REQUEST_TYPE] = NULL;
        v->avp_rc[W_RX_REQUEST_TYPE] = ENOENT;
    }
    /* Session-Id: without it nothing can be followed (5005). */
    int rc = v->avp_rc[W_SESSION_ID];
    if (rc == 0)
        rc = bsf_rx_avp_copy_text(v->avp[W_SESSION_ID], v->sid, sizeof v->sid);
    else
        v->sid[0] = '\0';
    int32_t rrt = BSF_RX_REQUEST_TYPE_NONE;
    struct avp *a = NULL;
    if (v->avp_rc[W_RX_REQUEST_TYPE] == 0)
        rrt = bsf_rx_avp_i32(v->avp[W_RX_REQUEST_TYPE]);
    bsf_rx_session_t sess;
    bool known = rc == 0 && bsf_rx_sessions_get(&px->sessions, v->sid, strlen(v->sid), arrived,
                                                 &sess);
    tx->kind = bsf_rx_kind_classify(hdr->msg_code, rrt, known);
    bsf_rx_metrics_count_inbound(px->metrics, tx->kind);
    if (!admitted(px, *pmsg, tx->kind)) {
        uint32_t code, vendor;
        bsf_rx_cong_monitor_answer(px->congestion, &code, &vendor);
        r = rc_result(code, "the BSF is congested");
        r.vendor = vendor;
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    if (rc == ENOENT || rc == EBADMSG) {
        r = rc_result(RC_MISSING_AVP, "no Session-Id");
        r.failed_model = rx->session_id;
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    if (rc) {
        r = rc_result(RC_INVALID_AVP_VALUE, "Session-Id too long");
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    v->sid_len = strlen(v->sid);
    if (v->avp_rc[W_AUTH_APP_ID] == 0 &&
        bsf_rx_avp_u32(a = v->avp[W_AUTH_APP_ID]) != BSF_RX_APP_ID) {
        r = rc_result(RC_INVALID_AVP_VALUE, "Auth-Application-Id is not Rx (16777236)");
        r.failed_model = rx->auth_application_id;
        r.failed_u32 = true;
        r.failed_u32_value = bsf_rx_avp_u32(a);
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    if (atomic_load(&px->draining)) {
        r = rc_result(RC_TOO_BUSY, "the BSF is shutting down");
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    if (v->avp_rc[W_DEST_REALM] != 0 ||
        bsf_rx_avp_copy_text(v->avp[W_DEST_REALM], v->dest_realm, sizeof v->dest_realm) != 0)
        v->dest_realm[0] = '\0';
    if (v->avp_rc[W_DEST_HOST] != 0 ||
        bsf_rx_avp_copy_text(v->avp[W_DEST_HOST], v->dest_host, sizeof v->dest_host) != 0)
        v->dest_host[0] = '\0';
    if (!(tx->sid = malloc(v->sid_len))) {
        r = rc_result(RC_TOO_BUSY, "out of memory");
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    memcpy(tx->sid, v->sid, v->sid_len);
    tx->sid_len = v->sid_len;

    switch (tx->kind) {
    case BSF_RX_AAR_I:
        if (route_aar_i(px, tx, pmsg, v))
            goto done;
        break;
    case BSF_RX_AAR_U:
    case BSF_RX_STR:
        if (known) {
            cand_add(tx, sess.pcf_peer);
            cand_add_routes(px, tx, v->dest_realm, sess.pcf_host);
            tx->has_binding = sess.has_binding;
            tx->binding_id = sess.binding_id;
            bsf_rx_identity_copy(tx->dest_host, v->dest_host[0] ? v->dest_host : sess.pcf_host,
                                 SIZE_MAX);
            if (!v->dest_host[0] && sess.pcf_host[0] &&
                bsf_rx_avp_replace_os(*pmsg, v->avp[W_DEST_HOST], rx->destination_host,
                                      sess.pcf_host, strlen(sess.pcf_host)) != 0) {
                r = rc_result(RC_UNABLE_TO_COMPLY, "cannot rewrite the request");
                answer_local(px, tx->kind, pmsg, &r, arrived);
                goto done;
            }
            break;
        }
        /* A session we do not know is routed like any other request. */
        __attribute__((fallthrough));
    default:
        if (known && (tx->kind == BSF_RX_RAR || tx->kind == BSF_RX_ASR)) {
            cand_add(tx, sess.af_peer);
            tx->has_binding = sess.has_binding; /* for the message feed */
            tx->binding_id = sess.binding_id;
        }
        bsf_rx_identity_copy(tx->dest_host, v->dest_host, SIZE_MAX);
        cand_add(tx, v->dest_host);
        cand_add_routes(px, tx, v->dest_realm, v->dest_host);
        break;
    }

    int first = pick_first_open(tx);
    if (first < 0) {
        r = rc_result(RC_UNABLE_TO_DELIVER, "no connected peer towards the destination");
        answer_local(px, tx->kind, pmsg, &r, arrived);
        goto done;
    }
    if (tx->kind == BSF_RX_AAR_I) {
        bsf_rx_session_t ns;
        memset(&ns, 0, sizeof ns);
        bsf_rx_identity_copy(ns.af_peer, tx->from, SIZE_MAX);
        bsf_rx_identity_copy(ns.pcf_peer, tx->cand[first], SIZE_MAX);
        bsf_rx_identity_copy(ns.pcf_host, tx->dest_host, SIZE_MAX);
        ns.has_binding = tx->has_binding;
        ns.binding_id = tx->binding_id;
        bsf_rx_session_add_t added =
            bsf_rx_sessions_put(&px->sessions, tx->sid, tx->sid_len, &ns, arrived);
        if (added == BSF_RX_SESSION_FULL || added == BSF_RX_SESSION_NOMEM) {
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_REFUSED, 1);
            r = rc_result(RC_TOO_BUSY, "too many Rx sessions");
            answer_local(px, tx->kind, pmsg, &r, arrived);
            goto done;
        }
        tx->opened_session = true;
        if (added == BSF_RX_SESSION_ADDED)
            bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_OPENED, 1);
    }
    struct msg *m = *pmsg;
    *pmsg = NULL;
    send_attempt(px, tx, m, first, false);
    return;
done:
    tx_free(tx);
    *pmsg = NULL;
}

/* ---- libfdcore callbacks --------------------------------------------------------------- */

/* Dispatch (requests addressed to our realm or host). */
static int on_dispatch(struct msg **msg, struct avp *avp, struct session *sess, void *opaque,
                       enum disp_action *act)
{
    (void)avp;
    (void)sess;
    bsf_rx_thread_name(BSF_RX_THREAD_DISPATCH);
    handle_request(opaque, msg);
    *act = DISP_ACT_CONT;
    return 0;
}

/* Forward path (requests for another host or realm): the same handling. */
static int on_fwd_request(void *cbdata, struct msg **msg)
{
    struct msg_hdr *hdr = NULL;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_IN);
    if (*msg && fd_msg_hdr(*msg, &hdr) == 0 && (hdr->msg_flags & CMD_FLAG_REQUEST))
        handle_request(cbdata, msg);
    return 0;
}

/* The tx handle of one of our forwarded requests, or 0 when the request is not ours. */
static uintptr_t handle_of(struct msg *req)
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

/* Answers to our forwarded requests, before libfdcore relays them to the requester. */
static int on_fwd_answer(void *cbdata, struct msg **pmsg)
{
    bsf_rx_proxy_t *px = cbdata;
    struct msg *q = NULL;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_IN);
    if (!*pmsg || fd_msg_answ_getq(*pmsg, &q) != 0 || !q)
        return 0;
    uintptr_t handle = handle_of(q);
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
    int next = is_success(info.code) ? -1 : pick_retry(px, tx, &o);
    if (next >= 0 && fd_msg_answ_detach(*pmsg) == 0) {
        fd_msg_free(*pmsg);
        *pmsg = NULL;
        tx->retries++;
        tx->retry_cause = info.code ? info.code : RC_UNABLE_TO_COMPLY;
        send_attempt(px, tx, q, next, true);
        return 0;
    }
    bsf_rx_avp_strip_local_route_record(px->rx, *pmsg, tx->cand[tx->current]);
    tx_finish(px, tx, info.code);
    return 0; /* libfdcore relays the answer to the requester */
}

/* libfdcore's answer timer (a detached thread of its own). */
static void on_expire(void *data, DiamId_t sentto, size_t sentto_len, struct msg **req)
{
    (void)sentto;
    (void)sentto_len;
    bsf_rx_proxy_t *px = proxy_instance;
    if (!px || !req || !*req)
        return;
    rx_tx_t *tx = bsf_rx_pending_take(&px->pending, (uintptr_t)data);
    if (!tx)
        return; /* already completed; libfdcore frees the request */
    bsf_rx_metrics_count_timeout(px->metrics, tx->kind);
    struct msg *m = *req;
    *req = NULL;
    bsf_rx_outcome_t o = {true, 0, BSF_RX_ORIGINATOR_ANY};
    int next = pick_retry(px, tx, &o);
    if (next >= 0) {
        tx->retries++;
        tx->retry_cause = BSF_RX_RETRY_TIMEOUT;
        send_attempt(px, tx, m, next, true);
        return;
    }
    BSF_INFO("diameter", "%s to %s: no answer in %u ms", bsf_rx_kind_name(tx->kind),
             tx->cand[tx->current], bsf_rx_kind_timeout_ms(&px->s, tx->kind));
    bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "no answer from the next hop in time");
    answer_local(px, tx->kind, &m, &r, tx->arrived_ns);
    tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

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
    uintptr_t handle = handle_of(request);
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

/* Routing-out: only the peer the proxy chose may get the request. */
static int on_rt_out(void *cbdata, struct msg **pmsg, struct fd_list *candidates)
{
    bsf_rx_proxy_t *px = cbdata;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_OUT);
    uintptr_t handle = handle_of(*pmsg);
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
    bool found = false, usable = neighbour_connected(px, target, tlen);
    for (struct fd_list *li = candidates->next; li != candidates && usable; li = li->next) {
        struct rtd_candidate *c = (struct rtd_candidate *)li;
        if (!found && c->diamidlen == tlen && strncasecmp(c->diamid, target, tlen) == 0) {
            c->score = FD_SCORE_FINALDEST * 10;
            found = true;
        } else {
            c->score = FD_SCORE_NO_DELIVERY;
        }
    }
    if (found)
        return 0;
    /* The chosen peer went away: the worker picks another one (this thread must not block
     * on libfdcore's outgoing queue, which it drains). */
    rx_reroute_t *rr = malloc(sizeof *rr);
    if (!rr)
        return 0; /* libfdcore answers 3002 itself; the routing-error hook completes tx */
    rr->next = NULL;
    rr->msg = *pmsg;
    *pmsg = NULL;
    pthread_mutex_lock(&px->mu);
    if (px->q_tail)
        px->q_tail->next = rr;
    else
        px->q_head = rr;
    px->q_tail = rr;
    pthread_cond_signal(&px->cv);
    pthread_mutex_unlock(&px->mu);
    return 0;
}

/* Events of libfdcore. Per-message hooks are registered empty: libfdcore's default ones
 * format every message under a global lock (pitfall 5). */
static void on_hook(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer, void *other,
                    struct fd_hook_permsgdata *pmd, void *regdata)
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
        bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_CONNECTED);
        if (px->s.tcp_nodelay && peer) {
            int sock = bsf_rx_peer_socket(peer), one = 1;
            if (sock < 0 || setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
                BSF_WARN("diameter", "peer %s: cannot set TCP_NODELAY", pid);
            else
                BSF_DEBUG("diameter", "peer %s: TCP_NODELAY set", pid);
        }
        BSF_INFO("diameter", "peer %s connected", pid);
        return;
    case HOOK_MESSAGE_ROUTING_ERROR:
    case HOOK_MESSAGE_DROPPED:
        break;
    default:
        return;
    }
    bsf_rx_metrics_count_event(px->metrics, type == HOOK_MESSAGE_DROPPED ? BSF_RX_EV_DROPPED
                                                                          : BSF_RX_EV_ROUTING_ERROR);
    struct msg_hdr *hdr = NULL;
    if (!msg || fd_msg_hdr(msg, &hdr) != 0)
        return;
    struct msg *req = msg;
    if (!(hdr->msg_flags & CMD_FLAG_REQUEST) && (fd_msg_answ_getq(msg, &req) != 0 || !req))
        return;
    uintptr_t handle = handle_of(req);
    rx_tx_t *tx = handle ? bsf_rx_pending_take(&px->pending, handle) : NULL;
    if (!tx)
        return;
    BSF_DEBUG("diameter", "%s: %s", bsf_rx_kind_name(tx->kind), other ? (const char *)other : "");
    if (type == HOOK_MESSAGE_ROUTING_ERROR && (hdr->msg_flags & CMD_FLAG_REQUEST)) {
        /* libfdcore answers 3002 to the requester itself right after this hook. */
        bsf_rx_metrics_count_local(px->metrics, tx->kind, RC_UNABLE_TO_DELIVER);
    } else if (hdr->msg_flags & CMD_FLAG_REQUEST) {
        bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "the request was dropped");
        answer_ref(px, tx, &r);
    }
    /* A dropped answer: its requester is gone (closed connection); nothing to answer. */
    tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

/* Per-message hooks: nothing to do but to name the thread (the sender's first routable
 * message: before it, the peer thread may send CEA / DWA itself). */
static void on_hook_empty(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                          void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
    (void)peer;
    (void)other;
    (void)pmd;
    (void)regdata;
    if (type == HOOK_DATA_RECEIVED)
        bsf_rx_thread_name(BSF_RX_THREAD_RECEIVER);
    else if (type == HOOK_MESSAGE_RECEIVED)
        bsf_rx_thread_name(BSF_RX_THREAD_PEER);
    else if (type == HOOK_MESSAGE_SENT && msg && fd_msg_is_routable(msg))
        bsf_rx_thread_name(BSF_RX_THREAD_SENDER);
}

/* ---- worker: reroutes, deadlines, session expiry --------------------------------------- */

static void reroute(bsf_rx_proxy_t *px, struct msg *msg)
{
    rx_tx_t *tx = bsf_rx_pending_take(&px->pending, handle_of(msg));
    if (!tx) {
        fd_msg_free(msg);
        return;
    }
    int next = pick_first_open(tx);
    if (next >= 0) {
        send_attempt(px, tx, msg, next, true);
        return;
    }
    bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "no connected peer towards the destination");
    answer_local(px, tx->kind, &msg, &r, tx->arrived_ns);
    tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
}

static void sweep(bsf_rx_proxy_t *px)
{
    uint64_t now = mono_ns();
    void *lost[256];
    size_t n;
    while ((n = bsf_rx_pending_take_expired(&px->pending, now, lost, 256)) > 0) {
        for (size_t i = 0; i < n; i++) {
            rx_tx_t *tx = lost[i];
            bsf_rx_metrics_count_event(px->metrics, BSF_RX_EV_LOST);
            BSF_WARN("diameter", "%s to %s: no outcome from freeDiameter, answering 3002",
                     bsf_rx_kind_name(tx->kind), tx->cand[tx->current]);
            bsf_rx_result_t r = rc_result(RC_UNABLE_TO_DELIVER, "no answer from the next hop");
            answer_ref(px, tx, &r);
            tx_finish(px, tx, RC_UNABLE_TO_DELIVER);
        }
        if (n < 256)
            break;
    }
    bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_EXPIRED,
                                 bsf_rx_sessions_expire(&px->sessions, now));
}

static void *worker_main(void *arg)
{
    bsf_rx_proxy_t *px = arg;
    pthread_mutex_lock(&px->mu);
    while (!px->stop) {
        while (px->q_head) {
            rx_reroute_t *rr = px->q_head;
            px->q_head = rr->next;
            if (!px->q_head)
                px->q_tail = NULL;
            pthread_mutex_unlock(&px->mu);
            reroute(px, rr->msg);
            free(rr);
            pthread_mutex_lock(&px->mu);
        }
        pthread_mutex_unlock(&px->mu);
        sweep(px);
        uint32_t wait_ms = bsf_rx_cong_monitor_tick(px->congestion, mono_ns(),
                                                    bsf_rx_pending_count(&px->pending));
        if (wait_ms > SWEEP_PERIOD_MS)
            wait_ms = SWEEP_PERIOD_MS;
        pthread_mutex_lock(&px->mu);
        if (px->stop || px->q_head)
            continue;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)wait_ms * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&px->cv, &px->mu, &until);
    }
    pthread_mutex_unlock(&px->mu);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

int bsf_rx_proxy_create(const bsf_diameter_settings_t *s, const bsf_rx_dict_t *rx,
                        bsf_store_t *store, bsf_engine_t *engine,
                        bsf_rx_connections_t *connections, bsf_rx_proxy_t **out, char *err,
                        size_t cap)
{
    char why[512];
    *out = NULL;
    bsf_rx_proxy_t *px = calloc(1, sizeof *px);
    if (!px) {
        snprintf(err, cap, "diameter: out of memory");
        return -1;
    }
    px->s = *s;
    px->rx = rx;
    px->store = store;
    px->engine = engine;
    px->connections = connections;
    atomic_init(&px->draining, false);
    pthread_condattr_t ca;
    if (pthread_mutex_init(&px->mu, NULL) || pthread_condattr_init(&ca)) {
        free(px);
        snprintf(err, cap, "diameter: cannot create a lock");
        return -1;
    }
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&px->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc) {
        pthread_mutex_destroy(&px->mu);
        free(px);
        snprintf(err, cap, "diameter: cannot create a condition variable");
        return -1;
    }
    if (bsf_rx_routes_load(s->routes, &px->routes, why, sizeof why)) {
        snprintf(err, cap, "diameter.routes: %s", why);
        goto fail;
    }
    if (bsf_rx_code_set_parse(s->retry_codes, false, &px->retry_codes, why, sizeof why) ||
        bsf_rx_code_set_parse(s->stale_codes, false, &px->stale_codes, why, sizeof why)) {
        snprintf(err, cap, "diameter: %s", why);
        goto fail;
    }
    struct dict_object *req[W_REQUEST_COUNT] = {
        [W_SESSION_ID] = rx->session_id,         [W_AUTH_APP_ID] = rx->auth_application_id,
        [W_DEST_REALM] = rx->destination_realm,  [W_DEST_HOST] = rx->destination_host,
        [W_RX_REQUEST_TYPE] = rx->rx_request_type};
    struct dict_object *ue[W_UE_COUNT] = {
        [W_FRAMED_IP] = rx->framed_ip_address, [W_FRAMED_IPV6] = rx->framed_ipv6_prefix,
        [W_IP_DOMAIN] = rx->ip_domain_id, [W_CALLED_STATION] = rx->called_station_id};
    for (size_t i = 0; i < W_REQUEST_COUNT; i++)
        bsf_rx_avp_want(req[i], &px->req_wants[i]);
    for (size_t i = 0; i < W_UE_COUNT; i++)
        bsf_rx_avp_want(ue[i], &px->ue_wants[i]);
    if (!(px->congestion = bsf_rx_cong_monitor_new(s, err, cap)))
        goto fail;
    px->metrics = bsf_rx_metrics_new();
    if (!px->metrics || bsf_rx_pending_init(&px->pending, s->max_pending)) {
        snprintf(err, cap, "diameter: cannot allocate %u pending requests", s->max_pending);
        goto fail;
    }
    /* An aborted session (ASA) waits for its STR at most twice the STR timeout. */
    uint64_t ending = 2ull * bsf_rx_kind_timeout_ms(s, BSF_RX_STR) * 1000000ull;
    if (bsf_rx_sessions_init(&px->sessions, s->max_sessions,
                             (uint64_t)s->session_idle_s * 1000000000ull, ending)) {
        snprintf(err, cap, "diameter: cannot allocate the session table");
        goto fail;
    }
    *out = px;
    return 0;
fail:
    bsf_rx_proxy_free(px);
    return -1;
}

int bsf_rx_proxy_start(bsf_rx_proxy_t *px, char *err, size_t cap)
{
    const bsf_rx_dict_t *rx = px->rx;
    struct disp_when when;
    int rc = 0;
    struct dict_object *cmds[] = {rx->cmd_aar, rx->cmd_str, rx->cmd_rar, rx->cmd_asr};
    proxy_instance = px;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0] && rc == 0; i++) {
        memset(&when, 0, sizeof when);
        when.app = rx->app;
        when.command = cmds[i];
        rc = fd_disp_register(on_dispatch, DISP_HOW_CC, &when, px, NULL);
    }
    if (rc == 0) {
        /* Other Rx commands addressed to us: routed like any request. */
        memset(&when, 0, sizeof when);
        when.app = rx->app;
        rc = fd_disp_register(on_dispatch, DISP_HOW_APPID, &when, px, NULL);
    }
    if (rc == 0)
        rc = fd_rt_fwd_register(on_fwd_request, px, RT_FWD_REQ, NULL);
    if (rc == 0)
        rc = fd_rt_fwd_register(on_fwd_answer, px, RT_FWD_ANS, NULL);
    if (rc == 0)
        rc = fd_rt_out_register(on_rt_out, px, 0, NULL); /* after libfdcore's (priority 10) */
    struct fd_hook_hdl *h = NULL;
    if (rc == 0)
        rc = fd_hook_register(HOOK_MASK(HOOK_MESSAGE_PARSING_ERROR, HOOK_MESSAGE_PARSING_ERROR2,
                                        HOOK_MESSAGE_ROUTING_ERROR, HOOK_MESSAGE_DROPPED,
                                        HOOK_MESSAGE_FAILOVER, HOOK_PEER_CONNECT_FAILED,
                                        HOOK_PEER_CONNECT_SUCCESS),
                              on_hook, px, NULL, &h);
    if (rc == 0)
        rc = fd_hook_register(HOOK_MASK(HOOK_DATA_RECEIVED, HOOK_MESSAGE_RECEIVED,
                                        HOOK_MESSAGE_LOCAL, HOOK_MESSAGE_SENDING, HOOK_MESSAGE_SENT,
                                        HOOK_MESSAGE_ROUTING_FORWARD, HOOK_MESSAGE_ROUTING_LOCAL),
                              on_hook_empty, NULL, NULL, &h);
    if (rc) {
        snprintf(err, cap, "diameter: cannot register with freeDiameter: %s", strerror(rc));
        return -1;
    }
    if ((rc = pthread_create(&px->worker, NULL, worker_main, px)) != 0) {
        snprintf(err, cap, "diameter: cannot start the worker thread: %s", strerror(rc));
        return -1;
    }
    px->worker_started = true;
    return 0;
}

void bsf_rx_proxy_drain(bsf_rx_proxy_t *px, unsigned wait_ms)
{
    atomic_store(&px->draining, true);
    for (unsigned waited = 0; waited < wait_ms && bsf_rx_pending_count(&px->pending) > 0;
         waited += 10) {
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
}

void bsf_rx_proxy_stop(bsf_rx_proxy_t *px)
{
    if (!px->worker_started)
        return;
    pthread_mutex_lock(&px->mu);
    px->stop = true;
    pthread_cond_signal(&px->cv);
    pthread_mutex_unlock(&px->mu);
    pthread_join(px->worker, NULL);
    px->worker_started = false;
}

void bsf_rx_proxy_free(bsf_rx_proxy_t *px)
{
    if (!px)
        return;
    bsf_rx_proxy_stop(px);
    if (proxy_instance == px)
        proxy_instance = NULL;
    while (px->q_head) {
        rx_reroute_t *rr = px->q_head;
        px->q_head = rr->next;
        fd_msg_free(rr->msg);
        free(rr);
    }
    if (px->pending.slots) {
        void *left[256];
        size_t n;
        while ((n = bsf_rx_pending_take_expired(&px->pending, UINT64_MAX, left, 256)) > 0)
            for (size_t i = 0; i < n; i++)
                tx_free(left[i]);
        bsf_rx_pending_destroy(&px->pending);
    }
    if (px->sessions.shards[0].buckets)
        bsf_rx_sessions_destroy(&px->sessions);
    bsf_rx_routes_free(&px->routes);
    bsf_rx_metrics_free(px->metrics);
    bsf_rx_cong_monitor_free(px->congestion);
    pthread_cond_destroy(&px->cv);
    pthread_mutex_destroy(&px->mu);
    free(px);
}

void bsf_rx_proxy_write_metrics(bsf_rx_proxy_t *px, bsf_text_t *out)
{
    bsf_rx_metrics_write(px->metrics, bsf_rx_pending_count(&px->pending), px->s.max_pending,
                         bsf_rx_sessions_count(&px->sessions), out);
    if (px->s.congestion)
        bsf_rx_cong_monitor_write_metrics(px->congestion, out);
    bsf_rx_node_write_peers(out);
}
