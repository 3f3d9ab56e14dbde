/* The life of one SBI client request on the client's thread: attempts through the pool,
 * the deadline, retries with back-off, redirects, and the completion callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/dlist.h"
#include "gateways/admission/admission_rules.h"
#include "gateways/sbi/sbi_client_internal.h"
#include "gateways/sbi/scp_rules.h"

#define NV_MAX (16 + BSF_SBI_MAX_EXTRA_HEADERS)

static uint64_t now_ms(void)
{
    return bsf_clock_mono_ns() / 1000000u;
}

static void attempt(req_t *r);

static void on_timer_closed(uv_handle_t *h)
{
    req_t *r = h->data;
    r->timer_closed = true;
    if (!r->token_pending) /* else the token provider's answer frees it */
        bsf_sbi_req_free(r);
}

void bsf_sbi_req_free(req_t *r)
{
    free(r->token);
    free(r->strings);
    free(r);
}

/* Detaches the request from whatever holds it now (pool queue, stream). */
static void detach(req_t *r)
{
    bsf_sbi_pool_withdraw(&r->waiter);
    if (r->conn) {
        bsf_h2c_cancel(r->conn, r->stream);
        r->conn = NULL;
    }
}

static void finish(req_t *r, bsf_sbi_response_t *rsp)
{
    bsf_sbi_client_t *c = r->client;
    detach(r);
    uv_timer_stop(&r->timer);
    r->state = REQ_DONE;
    BSF_DLIST_UNLINK(c->active, r);
    rsp->attempts = r->attempts;
    rsp->redirects = r->redirects;
    char uri[BSF_SBI_URI_MAX + BSF_SBI_HOST_MAX + 16];
    size_t n = bsf_sbi_uri_api_root(&r->target, uri, sizeof uri);
    snprintf(uri + n, sizeof uri - n, "%s", r->target.path);
    rsp->uri = uri;
    char scp[BSF_SBI_HOST_MAX + 16];
    rsp->via_scp = r->via_scp && bsf_sbi_uri_api_root(&r->scp, scp, sizeof scp) ? scp : NULL;
    if (rsp->result == BSF_SBI_ERR_TIMEOUT)
        atomic_fetch_add(&c->timeouts, 1);
    else if (rsp->result == BSF_SBI_ERR_CONNECT)
        atomic_fetch_add(&c->connect_errors, 1);
    else if (rsp->result == BSF_SBI_OK)
        atomic_fetch_add(&c->answers, 1);
    r->done(r->arg, rsp);
    atomic_fetch_add(&c->completed, 1);
    atomic_fetch_sub(&c->pending, 1);
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
}

static void finish_error(req_t *r, bsf_sbi_result_t result, const char *why)
{
    bsf_sbi_response_t rsp = {.result = result, .error = why, .body = ""};
    finish(r, &rsp);
}

void bsf_sbi_req_abort(req_t *r, const char *why)
{
    finish_error(r, BSF_SBI_ERR_STOPPED, why);
}

static void on_timer(uv_timer_t *t);

static void arm(req_t *r, uint64_t at_ms)
{
    uint64_t now = now_ms();
    uv_timer_start(&r->timer, on_timer, at_ms > now ? at_ms - now : 0, 0);
}

/* Another SCP for this request, now: true when one was left and there is time. */
static bool scp_reselect(req_t *r)
{
    bsf_sbi_client_t *c = r->client;
    if (!r->scp_auto || c->stopped_loop || now_ms() >= r->deadline_ms)
        return false;
    int next = bsf_scp_table_pick(&c->scp, (int64_t)now_ms(), r->scp_tried);
    if (next < 0)
        return false;
    r->reselections++;
    attempt(r);
    return true;
}

/* A timeout or a connection failure through an SCP (seed 001): it is marked temporarily
 * unavailable and another one is tried. Returns true when the request went on. */
static bool scp_failed(req_t *r)
{
    if (!r->scp_auto)
        return false;
    bsf_scp_table_mark(&r->client->scp, r->scp_index, (int64_t)now_ms());
    return scp_reselect(r);
}

/* What an answer through the configured SCPs means for the SCP. True when the request
 * went on through another SCP. */
static bool scp_answer(req_t *r, bsf_sbi_response_t *rsp)
{
    if (!r->via_scp)
        return false;
    bool by_scp = bsf_scp_server_names_scp(bsf_sbi_response_header(rsp, "server"), r->scp.host);
    bsf_scp_verdict_t v = bsf_scp_verdict(rsp->status, rsp->has_problem ? rsp->problem.cause
                                                                        : NULL, by_scp);
    rsp->from_scp = v != BSF_SCP_FINE;
    if (!r->scp_auto)
        return false;
    bsf_scp_table_t *t = &r->client->scp;
    if (v == BSF_SCP_FINE) {
        bsf_scp_table_fine(t, r->scp_index);
        /* not the SCP's failure: a retry goes through the same SCP (no reselection) */
        r->scp_tried &= ~(1u << r->scp_index);
        return false;
    }
    if (v == BSF_SCP_MARK_RESELECT)
        bsf_scp_table_mark(t, r->scp_index, (int64_t)now_ms());
    return scp_reselect(r);
}

/* The attempt ended without an answer to deliver as is: retry or complete. */
static void attempt_failed(req_t *r, bsf_sbi_attempt_end_t end, int status,
                           int64_t retry_after_ms, bsf_sbi_response_t *answer)
{
    bsf_sbi_client_t *c = r->client;
    uint64_t now = now_ms();
    int64_t remaining = (int64_t)r->deadline_ms - (int64_t)now;
    bool stopping = c->stopped_loop;
    int64_t delay = stopping ? -1
                             : bsf_sbi_retry_decide(&r->retry, r->retries + 1, end, status,
                                                    retry_after_ms, remaining);
    if (delay < 0) {
        if (answer)
            finish(r, answer);
        else if (stopping)
            finish_error(r, BSF_SBI_ERR_STOPPED, "client stopping");
        else
            finish_error(r, end == BSF_SBI_ATTEMPT_TIMEOUT ? BSF_SBI_ERR_TIMEOUT
                                                            : r->last_result,
                         r->last_error);
        return;
    }
    r->retries++;
    atomic_fetch_add(&c->retries, 1);
    r->state = REQ_BACKOFF;
    arm(r, now + (uint64_t)delay);
}

static void on_timer(uv_timer_t *t)
{
    req_t *r = t->data;
    if (r->state == REQ_BACKOFF) {
        attempt(r);
        return;
    }
    detach(r);
    snprintf(r->last_error, sizeof r->last_error, "no answer in time");
    if (r->scp_auto)
        bsf_scp_table_mark(&r->client->scp, r->scp_index, (int64_t)now_ms());
    if (now_ms() >= r->deadline_ms)
        finish_error(r, BSF_SBI_ERR_TIMEOUT, r->last_error);
    else if (!scp_reselect(r))
        attempt_failed(r, BSF_SBI_ATTEMPT_TIMEOUT, 0, -1, NULL);
}

static void fill_response(bsf_sbi_response_t *rsp, const bsf_h2c_reply_t *rep)
{
    memset(rsp, 0, sizeof *rsp);
    rsp->result = BSF_SBI_OK;
    rsp->status = rep->status;
    rsp->body = rep->body;
    rsp->body_len = rep->body_len;
    for (size_t i = 0; i < rep->n_headers && i < BSF_SBI_MAX_RSP_HEADERS; i++)
        rsp->headers[rsp->n_headers++] = rep->headers[i];
    rsp->content_type = bsf_sbi_response_header(rsp, "content-type");
    if (bsf_sbi_is_problem_json(rsp->content_type))
        rsp->has_problem = bsf_sbi_problem_decode(rsp->body, rsp->body_len, &rsp->problem) == 0;
}

/* 307/308: the same request to the Location. Returns true when it was followed or ended. */
static bool follow_redirect(req_t *r, const bsf_sbi_response_t *rsp)
{
    if (rsp->status != 307 && rsp->status != 308)
        return false;
    const char *loc = bsf_sbi_response_header(rsp, "location");
    if (!loc)
        return false;
    bsf_sbi_client_t *c = r->client;
    if (r->redirects >= c->cfg.max_redirects) {
        finish_error(r, BSF_SBI_ERR_REDIRECTS, "too many redirects");
        return true;
    }
    char err[128];
    bsf_sbi_uri_t next;
    if (bsf_sbi_uri_resolve(&r->target, loc, strlen(loc), &next, err, sizeof err)) {
        char why[200];
        snprintf(why, sizeof why, "bad redirect Location: %s", err);
        finish_error(r, BSF_SBI_ERR_PROTOCOL, why);
        return true;
    }
    r->target = next;
    r->api_prefix_len = 0; /* a redirect's URI: its apiRoot is not known */
    r->redirects++;
    atomic_fetch_add(&c->redirects, 1);
    attempt(r);
    return true;
}

/* TS 29.500 §6.4.3.4: the producer's OCI (any status) applies to our next requests to it. */
static void record_oci(req_t *r, const bsf_sbi_response_t *rsp)
{
    const char *v = bsf_sbi_response_header(rsp, "3gpp-sbi-oci");
    bsf_sbi_oci_t oci;
    if (!v || r->client->cfg.ignore_oci || bsf_sbi_oci_parse(v, strlen(v), &oci))
        return;
    bsf_sbi_oci_table_update(&r->client->oci, r->target.authority, &oci, now_ms());
}

static void on_reply(void *arg, int error, const char *why, const bsf_h2c_reply_t *rep)
{
    req_t *r = arg;
    r->conn = NULL;
    if (error) {
        snprintf(r->last_error, sizeof r->last_error, "%s", why);
        r->last_result = error == BSF_H2C_ERR_CONNECT ? BSF_SBI_ERR_CONNECT
                                                      : BSF_SBI_ERR_PROTOCOL;
        if (error == BSF_H2C_ERR_CONNECT && !scp_failed(r))
            attempt_failed(r, BSF_SBI_ATTEMPT_CONNECT_ERROR, 0, -1, NULL);
        else if (error == BSF_H2C_ERR_CONNECT)
            return;
        else
            finish_error(r, BSF_SBI_ERR_PROTOCOL, r->last_error);
        return;
    }
    bsf_sbi_response_t rsp;
    fill_response(&rsp, rep);
    bsf_mp_metrics_answer(r->metric, bsf_adm_priority_parse(bsf_sbi_response_header(
                                         &rsp, "3gpp-sbi-message-priority")),
                          rsp.status);
    record_oci(r, &rsp);
    if (rsp.status == 401 && r->token && !r->token_refreshed) {
        /* the producer refused the token (expired, revoked): one retry with a new one */
        bsf_sbi_token_provider_t *tp = &r->client->tokens;
        if (tp->invalidate)
            tp->invalidate(tp->ctx, r->oauth_scope, r->target_nf_type, r->token);
        free(r->token);
        r->token = NULL;
        r->token_refreshed = true;
        attempt(r);
        return;
    }
    if (scp_answer(r, &rsp) || follow_redirect(r, &rsp))
        return;
    int64_t ra = bsf_sbi_retry_after_ms(bsf_sbi_response_header(&rsp, "retry-after"),
                                        (int64_t)bsf_clock_wall_ms());
    attempt_failed(r, BSF_SBI_ATTEMPT_ANSWER, rsp.status, ra, &rsp);
}

/* ---- sending ----------------------------------------------------------------------- */

typedef struct {
    nghttp2_nv nv[NV_MAX];
    size_t n;
} nvs_t;

static void nv_add(nvs_t *v, const char *name, const char *value)
{
    if (!value || v->n >= NV_MAX)
        return;
    v->nv[v->n++] = (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, strlen(name),
                                 strlen(value), NGHTTP2_NV_FLAG_NONE};
}

typedef struct {
    char ts[BSF_SBI_TIME_HEADER_MAX], max_rsp[16], prio[8], len[24];
    char target_root[BSF_SBI_HOST_MAX + 16 + 256];
    char path[BSF_SBI_URI_MAX * 2];
    char auth[4096 + 8];
} nv_text_t;

/* The header list of one attempt; the texts it points to live in `t`. */
static void build_headers(const req_t *r, nvs_t *v, nv_text_t *t)
{
    const bsf_sbi_uri_t *to = r->via_scp ? &r->scp : &r->target;
    v->n = 0;
    nv_add(v, ":method", r->method);
    nv_add(v, ":scheme", to->tls ? "https" : "http");
    nv_add(v, ":authority", to->authority);
    if (r->via_scp) {
        /* Model C: the SCP's apiRoot (with its prefix) in front of the target's path. */
        const char *prefix = strcmp(r->scp.path, "/") == 0 ? "" : r->scp.path;
        size_t pl = strlen(prefix);
        if (pl && prefix[pl - 1] == '/')
            pl--;
        /* the target's apiRoot (its apiPrefix too) in 3gpp-Sbi-Target-apiRoot, the path
         * below it after the SCP's (TS 29.500 §6.10, TS 29.501 §4.4.1) */
        size_t tp = r->api_prefix_len;
        snprintf(t->path, sizeof t->path, "%.*s%s", (int)pl, prefix, r->target.path + tp);
        nv_add(v, ":path", t->path);
        size_t n = bsf_sbi_uri_api_root(&r->target, t->target_root, sizeof t->target_root);
        if (n && n + tp < sizeof t->target_root)
            snprintf(t->target_root + n, sizeof t->target_root - n, "%.*s", (int)tp,
                     r->target.path);
    } else {
        nv_add(v, ":path", r->target.path);
    }
    nv_add(v, "user-agent", r->client->user_agent);
    bsf_sbi_time_format_header((int64_t)bsf_clock_wall_ms(), t->ts);
    nv_add(v, "3gpp-sbi-sender-timestamp", t->ts);
    int64_t left = (int64_t)r->deadline_ms - (int64_t)now_ms();
    snprintf(t->max_rsp, sizeof t->max_rsp, "%lld", (long long)(left > 1 ? left : 1));
    nv_add(v, "3gpp-sbi-max-rsp-time", t->max_rsp);
    if (r->priority >= 0) {
        snprintf(t->prio, sizeof t->prio, "%d", r->priority);
        nv_add(v, "3gpp-sbi-message-priority", t->prio);
    }
    if (r->via_scp)
        nv_add(v, "3gpp-sbi-target-apiroot", t->target_root);
    if (r->token) {
        snprintf(t->auth, sizeof t->auth, "Bearer %s", r->token);
        nv_add(v, "authorization", t->auth);
    }
    nv_add(v, "3gpp-sbi-correlation-info", r->correlation_info);
    nv_add(v, "3gpp-sbi-callback", r->callback);
    nv_add(v, "3gpp-sbi-routing-binding", r->routing_binding);
    nv_add(v, "3gpp-sbi-binding", r->binding);
    nv_add(v, "accept", "application/json, application/problem+json");
    if (r->body_len) {
        nv_add(v, "content-type", r->content_type);
        snprintf(t->len, sizeof t->len, "%zu", r->body_len);
        nv_add(v, "content-length", t->len);
    }
    for (size_t i = 0; i < r->n_headers; i++)
        nv_add(v, r->headers[i].name, r->headers[i].value);
}

static void on_granted(bsf_sbi_pool_waiter_t *w, bsf_h2c_t *conn)
{
    req_t *r = (req_t *)((char *)w - offsetof(req_t, waiter));
    nvs_t v;
    nv_text_t t; /* nghttp2 copies the header block at submit */
    build_headers(r, &v, &t);
    int32_t id = bsf_h2c_submit(conn, v.nv, v.n, r->body, r->body_len, on_reply, r);
    if (id < 0) {
        snprintf(r->last_error, sizeof r->last_error, "cannot send the request");
        r->last_result = BSF_SBI_ERR_CONNECT;
        attempt_failed(r, BSF_SBI_ATTEMPT_CONNECT_ERROR, 0, -1, NULL);
        return;
    }
    bsf_mp_metrics_request(r->metric, r->priority); /* each attempt is a message sent */
    r->state = REQ_IN_FLIGHT;
    r->conn = conn;
    r->stream = id;
}

static void on_pool_failed(bsf_sbi_pool_waiter_t *w, const char *why)
{
    req_t *r = (req_t *)((char *)w - offsetof(req_t, waiter));
    snprintf(r->last_error, sizeof r->last_error, "%s", why);
    r->last_result = BSF_SBI_ERR_CONNECT;
    if (!scp_failed(r))
        attempt_failed(r, BSF_SBI_ATTEMPT_CONNECT_ERROR, 0, -1, NULL);
}

/* The SCP of this attempt: the first available one not tried yet (after every one was
 * tried, a retry starts over). */
static void choose_scp(req_t *r)
{
    bsf_scp_table_t *t = &r->client->scp;
    int i = bsf_scp_table_pick(t, (int64_t)now_ms(), r->scp_tried);
    if (i < 0) {
        r->scp_tried = 0;
        i = bsf_scp_table_pick(t, (int64_t)now_ms(), 0);
    }
    r->scp_tried |= 1u << i;
    r->scp_index = i;
    r->scp = t->scps[i].parsed;
    r->via_scp = true;
}

static void acquire(req_t *r)
{
    r->waiter.granted = on_granted;
    r->waiter.failed = on_pool_failed;
    bsf_sbi_pool_acquire(r->client->pool, r->via_scp ? &r->scp : &r->target, &r->waiter);
}

static void on_token(void *arg, const char *token, const char *why)
{
    req_t *r = arg;
    r->token_pending = false;
    if (r->state == REQ_DONE) { /* completed (deadline, stop) while the token was fetched */
        if (r->timer_closed)
            bsf_sbi_req_free(r);
        return;
    }
    if (!token || strlen(token) > 4096 || !(r->token = strdup(token))) {
        char msg[200];
        snprintf(msg, sizeof msg, "no access token: %s", why ? why : "refused");
        finish_error(r, BSF_SBI_ERR_TOKEN, msg);
        return;
    }
    if (r->state == REQ_WAITING && !r->waiter.entry && !r->conn) /* not in back-off */
        acquire(r);
}

static void attempt(req_t *r)
{
    r->attempts++;
    r->state = REQ_WAITING;
    if (r->scp_auto)
        choose_scp(r);
    uint64_t now = now_ms();
    r->attempt_deadline_ms = r->deadline_ms;
    if (r->retry.attempt_timeout_ms && now + r->retry.attempt_timeout_ms < r->deadline_ms)
        r->attempt_deadline_ms = now + r->retry.attempt_timeout_ms;
    arm(r, r->attempt_deadline_ms);
    if (r->oauth_scope && !r->token) {
        if (r->token_pending) /* an earlier attempt's fetch still runs: it goes on */
            return;
        bsf_sbi_token_provider_t *tp = &r->client->tokens;
        r->token_pending = true;
        tp->get(tp->ctx, r->oauth_scope, r->target_nf_type, on_token, r);
        return;
    }
    acquire(r);
}

void bsf_sbi_req_start(req_t *r)
{
    bsf_sbi_client_t *c = r->client;
    uv_timer_init(&c->loop, &r->timer);
    r->timer.data = r;
    BSF_DLIST_PUSH(c->active, r);
    r->deadline_ms = now_ms() + r->timeout_ms;
    if (!c->cfg.ignore_oci && bsf_sbi_oci_table_throttle(&c->oci, r->target.authority, now_ms())) {
        atomic_fetch_add(&c->throttled, 1);
        finish_error(r, BSF_SBI_ERR_OVERLOAD, "throttled: the producer's OCI asks for fewer "
                                              "requests");
        return;
    }
    attempt(r);
}
