/* The Rx proxy's lifecycle and its registration with libfdcore (see rx_proxy.h; the parts are
 * listed in rx_proxy_internal.h). */
#include "gateways/diameter/rx_proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_proxy_internal.h"
#include "gateways/diameter/rx_thread_name.h"
#include "common/error.h"

bsf_rx_proxy_t *bsf_rx_proxy_instance;

uint64_t bsf_rx_proxy_now_ns(void)
{
    return bsf_clock_mono_ns();
}

bsf_rx_result_t bsf_rx_proxy_rc(uint32_t code, const char *message)
{
    bsf_rx_result_t r = {.code = code, .message = message};
    return r;
}

bsf_rx_result_t bsf_rx_proxy_exp(uint32_t code, const char *message)
{
    bsf_rx_result_t r = {.code = code, .vendor = BSF_RX_VENDOR_3GPP, .message = message};
    return r;
}

bool bsf_rx_proxy_is_success(uint32_t code)
{
    return code >= 2000 && code < 3000;
}

/* ---- libfdcore's entry points for requests --------------------------------------------- */

/* Dispatch (requests addressed to our realm or host). */
static int on_dispatch(struct msg **msg, struct avp *avp, struct session *sess, void *opaque,
                       enum disp_action *act)
{
    (void)avp;
    (void)sess;
    bsf_rx_thread_name(BSF_RX_THREAD_DISPATCH);
    bsf_rx_proxy_handle_request(opaque, msg);
    *act = DISP_ACT_CONT;
    return 0;
}

/* Forward path (requests for another host or realm): the same handling. */
static int on_fwd_request(void *cbdata, struct msg **msg)
{
    struct msg_hdr *hdr = NULL;
    bsf_rx_thread_name(BSF_RX_THREAD_ROUTING_IN);
    if (*msg && fd_msg_hdr(*msg, &hdr) == 0 && (hdr->msg_flags & CMD_FLAG_REQUEST))
        bsf_rx_proxy_handle_request(cbdata, msg);
    return 0;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

int bsf_rx_proxy_create(const bsf_diameter_settings_t *s, const bsf_rx_dict_t *rx,
                        bsf_store_t *store, bsf_engine_t *engine,
                        bsf_rx_connections_t *connections, bsf_admission_t *admission,
                        bsf_rx_proxy_t **out, char *err, size_t cap)
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
    if (pthread_mutex_init(&px->mu, NULL)) {
        free(px);
        snprintf(err, cap, "diameter: cannot create a lock");
        return -1;
    }
    if (bsf_cond_init_monotonic(&px->cv)) {
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
        [W_ORIGIN_HOST] = rx->origin_host,       [W_ORIGIN_REALM] = rx->origin_realm,
        [W_RX_REQUEST_TYPE] = rx->rx_request_type};
    struct dict_object *ue[W_UE_COUNT] = {
        [W_FRAMED_IP] = rx->framed_ip_address, [W_FRAMED_IPV6] = rx->framed_ipv6_prefix,
        [W_IP_DOMAIN] = rx->ip_domain_id, [W_CALLED_STATION] = rx->called_station_id};
    for (size_t i = 0; i < W_REQUEST_COUNT; i++)
        bsf_rx_avp_want(req[i], &px->req_wants[i]);
    for (size_t i = 0; i < W_UE_COUNT; i++)
        bsf_rx_avp_want(ue[i], &px->ue_wants[i]);
    if (!(px->congestion = bsf_rx_cong_monitor_new(s, admission, err, cap)))
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
    bsf_rx_proxy_instance = px;
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
        rc = fd_rt_fwd_register(bsf_rx_proxy_on_fwd_answer, px, RT_FWD_ANS, NULL);
    if (rc == 0)
        rc = fd_rt_out_register(bsf_rx_proxy_on_rt_out, px, 0, NULL); /* after libfdcore's (priority 10) */
    struct fd_hook_hdl *h = NULL;
    if (rc == 0)
        rc = fd_hook_register(HOOK_MASK(HOOK_MESSAGE_PARSING_ERROR, HOOK_MESSAGE_PARSING_ERROR2,
                                        HOOK_MESSAGE_ROUTING_ERROR, HOOK_MESSAGE_DROPPED,
                                        HOOK_MESSAGE_FAILOVER, HOOK_PEER_CONNECT_FAILED,
                                        HOOK_PEER_CONNECT_SUCCESS),
                              bsf_rx_proxy_on_hook, px, NULL, &h);
    if (rc == 0)
        rc = fd_hook_register(HOOK_MASK(HOOK_DATA_RECEIVED, HOOK_MESSAGE_RECEIVED,
                                        HOOK_MESSAGE_LOCAL, HOOK_MESSAGE_SENDING, HOOK_MESSAGE_SENT,
                                        HOOK_MESSAGE_ROUTING_FORWARD, HOOK_MESSAGE_ROUTING_LOCAL),
                              bsf_rx_proxy_on_hook_empty, px, NULL, &h);
    if (rc) {
        snprintf(err, cap, "diameter: cannot register with freeDiameter: %s", bsf_strerror(rc));
        return -1;
    }
    if ((rc = bsf_worker_start(&px->worker, bsf_rx_proxy_worker_main, px, NULL)) != 0) {
        snprintf(err, cap, "diameter: cannot start the worker thread: %s", bsf_strerror(rc));
        return -1;
    }
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
    bsf_worker_stop(&px->worker, &px->mu, &px->cv);
}

void bsf_rx_proxy_free(bsf_rx_proxy_t *px)
{
    if (!px)
        return;
    bsf_rx_proxy_stop(px);
    if (bsf_rx_proxy_instance == px)
        bsf_rx_proxy_instance = NULL;
    bsf_fifo_link_t *l;
    while ((l = bsf_fifo_pop(&px->reroutes))) {
        rx_reroute_t *rr = BSF_FIFO_ENTRY(l, rx_reroute_t, link);
        fd_msg_free(rr->msg);
        free(rr);
    }
    if (px->pending.slots) {
        void *left[256];
        size_t n;
        while ((n = bsf_rx_pending_take_expired(&px->pending, UINT64_MAX, left, 256)) > 0)
            for (size_t i = 0; i < n; i++)
                bsf_rx_proxy_tx_free(left[i]);
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

uint64_t bsf_rx_proxy_messages(const bsf_rx_proxy_t *px)
{
    return bsf_rx_metrics_messages(px->metrics);
}

void bsf_rx_proxy_write_metrics(bsf_rx_proxy_t *px, bsf_text_t *out)
{
    bsf_rx_metrics_write(px->metrics, bsf_rx_pending_count(&px->pending), px->s.max_pending,
                         bsf_rx_sessions_count(&px->sessions), out);
    if (px->s.congestion)
        bsf_rx_cong_monitor_write_metrics(px->congestion, out);
    bsf_rx_node_write_peers(out);
}

int bsf_rx_proxy_set_congestion_thresholds(bsf_rx_proxy_t *px, const char *cpu,
                                           const char *queue, char *err, size_t cap)
{
    return bsf_rx_cong_monitor_set_thresholds(px->congestion, cpu, queue, err, cap);
}
