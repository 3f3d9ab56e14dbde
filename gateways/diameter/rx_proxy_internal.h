/* The Rx proxy's parts, shared by its files and by nothing else (see rx_proxy.h):
 *
 *   rx_proxy.c          lifecycle, registration with libfdcore, metrics
 *   rx_proxy_request.c  the request entry: reads and checks a received request
 *   rx_proxy_route.c    routing decisions: the candidates of a request, retry candidates
 *   rx_proxy_relay.c    forwarding, answers from the next hop, timers, libfdcore's hooks
 *   rx_proxy_worker.c   the worker thread: reroutes, the gateway's own deadline, expiry
 *   rx_proxy_answer.c   the one function that sends every answer the gateway makes
 *
 * Decisions (routing, checks) never answer: they return the answer to make, and the caller
 * hands it to bsf_rx_proxy_answer. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_PROXY_INTERNAL_H
#define BSF_GATEWAYS_DIAMETER_RX_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/fifo.h"
#include "common/worker_thread.h"
#include "gateways/diameter/rx_avp.h"
#include "gateways/diameter/rx_congestion_monitor.h"
#include "gateways/diameter/rx_kind.h"
#include "gateways/diameter/rx_metrics.h"
#include "gateways/diameter/rx_pending.h"
#include "gateways/diameter/rx_proxy.h"
#include "gateways/diameter/rx_retry.h"
#include "gateways/diameter/rx_routes.h"
#include "gateways/diameter/rx_sessions.h"

#define BSF_RX_PX_MAX_CANDIDATES 8
#define BSF_RX_PX_SID_MAX 1024 /* longest Session-Id forwarded; longer ones get 5004 */
/* Longest DiameterIdentity (Origin-/Destination-Host and -Realm): an FQDN (RFC 1035, 255
 * octets). Longer ones get 5004 DIAMETER_INVALID_AVP_VALUE. */
#define BSF_RX_PX_IDENTITY_LEN_MAX 255

#define RC_SUCCESS 2001
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
    char cand[BSF_RX_PX_MAX_CANDIDATES][BSF_RX_IDENTITY_MAX];
    bool tried[BSF_RX_PX_MAX_CANDIDATES];
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
    W_ORIGIN_HOST,
    W_ORIGIN_REALM,
    W_RX_REQUEST_TYPE,
    W_REQUEST_COUNT,
};
enum { W_FRAMED_IP, W_FRAMED_IPV6, W_IP_DOMAIN, W_CALLED_STATION, W_UE_COUNT };

/* What an incoming request says about its routing. */
typedef struct {
    char dest_host[BSF_RX_IDENTITY_MAX], dest_realm[BSF_RX_IDENTITY_MAX];
    char sid[BSF_RX_PX_SID_MAX];
    size_t sid_len;
    int sid_rc;                       /* 0, or why Session-Id could not be read */
    bool known;                       /* its session is in the table: */
    bsf_rx_session_t sess;            /* ... this one */
    struct avp *avp[W_REQUEST_COUNT]; /* bsf_rx_avp_collect of px->req_wants */
    int avp_rc[W_REQUEST_COUNT];
} rx_req_view_t;

/* A request libfdcore could not send to its chosen peer, waiting for the worker. */
typedef struct rx_reroute {
    bsf_fifo_link_t link; /* in the proxy's reroutes */
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
    bsf_fifo_t reroutes; /* of rx_reroute_t */
    bsf_worker_t worker;
};

/* libfdcore's answer-timeout callback gets only the data pointer given with the request,
 * which carries the request's handle; the proxy itself is found here. One node per process
 * (libfdcore is a singleton), so one proxy. Set by bsf_rx_proxy_start. */
extern bsf_rx_proxy_t *bsf_rx_proxy_instance;

uint64_t bsf_rx_proxy_now_ns(void); /* CLOCK_MONOTONIC */
/* A result with a Result-Code / a 3GPP Experimental-Result-Code; `message` is not copied. */
bsf_rx_result_t bsf_rx_proxy_rc(uint32_t code, const char *message);
bsf_rx_result_t bsf_rx_proxy_exp(uint32_t code, const char *message);
bool bsf_rx_proxy_is_success(uint32_t code);

/* ---- rx_proxy_answer.c ---- */

/* Whether the neighbour `id` has a trusted connection that can take a message (open, or
 * under watchdog suspicion). libfdcore 1.2.1 loses a message it cannot send to a closing
 * neighbour: such messages are not handed to it. NULL / empty id: true. Any thread. */
bool bsf_rx_proxy_neighbour_connected(bsf_rx_proxy_t *px, const char *id, size_t len);
/* THE one function that sends an answer made by the gateway. With `req` (the received
 * request, taken: *req is NULL afterwards in every case) the answer is built from it; with
 * req NULL it is built from `tx`'s reference (the request was dropped or is inside
 * libfdcore). Counted in the local-answer metrics before it is sent; not sent (counted as
 * dropped) when the requester's connection has gone. Failures are logged; nothing is
 * returned. Any libfdcore or worker thread. */
void bsf_rx_proxy_answer(bsf_rx_proxy_t *px, bsf_rx_kind_t kind, struct msg **req,
                         const rx_tx_t *tx, const bsf_rx_result_t *res, uint64_t arrived_ns);

/* ---- rx_proxy_request.c ---- */

/* Handles one request received by the node (dispatch or forward path); always takes *pmsg:
 * forwarded, answered, or freed. libfdcore's dispatch and routing-in threads. */
void bsf_rx_proxy_handle_request(bsf_rx_proxy_t *px, struct msg **pmsg);

/* ---- rx_proxy_route.c ---- (the caller's thread; nothing here sends or answers) */

/* Fills tx's candidates for a request read into `v`, rewriting Destination-Host/Realm and
 * adding the cookie in `msg` as the binding or the session asks. Returns 0 to forward, or 1
 * with *res the answer to make (msg unchanged or partly rewritten, still the caller's). */
int bsf_rx_proxy_route(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, rx_req_view_t *v,
                       bsf_rx_result_t *res);
/* The first candidate to send to (and, for an AAR-I, its session opened). Returns the
 * candidate's index, or -1 with *res the answer to make. */
int bsf_rx_proxy_route_first(bsf_rx_proxy_t *px, rx_tx_t *tx, bsf_rx_result_t *res);
/* First untried candidate that is connected, or -1. */
int bsf_rx_proxy_pick_open(rx_tx_t *tx);
/* The candidate of the next retry after outcome `o` (skipping peers that are not
 * connected, which are marked tried), or -1 when no retry is wanted or possible. */
int bsf_rx_proxy_pick_retry(bsf_rx_proxy_t *px, rx_tx_t *tx, const bsf_rx_outcome_t *o);

/* ---- rx_proxy_relay.c ---- */

/* A transaction with nothing set; NULL when out of memory. Freed with bsf_rx_proxy_tx_free
 * (NULL allowed). */
rx_tx_t *bsf_rx_proxy_tx_new(void);
void bsf_rx_proxy_tx_free(rx_tx_t *tx);
/* Session bookkeeping and metrics of a request whose requester got its answer with `code`
 * (relayed or made by us). Frees tx. */
void bsf_rx_proxy_tx_finish(bsf_rx_proxy_t *px, rx_tx_t *tx, uint32_t code);
/* Sends `msg` (taken) to tx->cand[index] (a retry or reroute when `resend`); on failure
 * answers the requester and finishes tx. After it returns tx may belong to another thread:
 * do not touch it. */
void bsf_rx_proxy_send_attempt(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, int index,
                               bool resend);
/* The handle of one of our forwarded requests, or 0 when the request is not ours. */
uintptr_t bsf_rx_proxy_handle_of(struct msg *req);
/* libfdcore callbacks (registered by bsf_rx_proxy_start): answers of forwarded requests
 * (routing-in thread), routing-out (routing-out thread), events (any libfdcore thread). */
int bsf_rx_proxy_on_fwd_answer(void *cbdata, struct msg **pmsg);
int bsf_rx_proxy_on_rt_out(void *cbdata, struct msg **pmsg, struct fd_list *candidates);
void bsf_rx_proxy_on_hook(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                          void *other, struct fd_hook_permsgdata *pmd, void *regdata);
void bsf_rx_proxy_on_hook_empty(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                                void *other, struct fd_hook_permsgdata *pmd, void *regdata);

/* ---- rx_proxy_worker.c ---- */

/* Queues `msg` (taken) for the worker to route again. Returns 0, or ENOMEM (msg untouched,
 * still the caller's). Any thread; never blocks on libfdcore. */
int bsf_rx_proxy_queue_reroute(bsf_rx_proxy_t *px, struct msg *msg);
/* The worker thread's body (pthread_create argument: the proxy). */
void *bsf_rx_proxy_worker_main(void *arg);

#endif
