/* The SBI client's thread, its submit queue and its start/stop; see sbi_client.h. The life
 * of a request is in sbi_client_request.c. */
#include "gateways/sbi/sbi_client.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/dlist.h"
#include "common/fifo.h"
#include "common/metrics_text.h"
#include "common/str_pack.h"
#include "gateways/sbi/h2_tls.h"
#include "gateways/sbi/sbi_client_internal.h"

#define SWEEP_MS 1000
#define HEADER_VALUE_MAX 4096

const char *bsf_sbi_response_header(const bsf_sbi_response_t *rsp, const char *name)
{
    for (size_t i = 0; i < rsp->n_headers; i++)
        if (strcasecmp(rsp->headers[i].name, name) == 0)
            return rsp->headers[i].value;
    return NULL;
}

/* ---- the client thread ------------------------------------------------------------- */

static void on_async(uv_async_t *a);

static void on_post_closed(uv_handle_t *h)
{
    free(h->data);
}

static void post_run(post_t *p, bool stopped)
{
    bsf_sbi_client_t *c = p->client;
    BSF_DLIST_UNLINK(c->timers, p);
    uv_timer_stop(&p->timer);
    p->fn(p->arg, stopped);
    uv_close((uv_handle_t *)&p->timer, on_post_closed);
}

static void on_post_timer(uv_timer_t *t)
{
    post_t *p = t->data;
    post_run(p, p->client->stopped_loop);
}

static void post_start(post_t *p)
{
    bsf_sbi_client_t *c = p->client;
    uv_timer_init(&c->loop, &p->timer);
    p->timer.data = p;
    BSF_DLIST_PUSH(c->timers, p);
    uv_timer_start(&p->timer, on_post_timer, p->delay_ms, 0);
}

int bsf_sbi_client_post(bsf_sbi_client_t *c, unsigned delay_ms, bsf_sbi_post_fn fn, void *arg)
{
    post_t *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *p = (post_t){.client = c, .delay_ms = delay_ms, .fn = fn, .arg = arg};
    pthread_mutex_lock(&c->mu);
    if (c->stopping) {
        pthread_mutex_unlock(&c->mu);
        free(p);
        return -1;
    }
    BSF_FIFO_APPEND(c->posts_head, c->posts_tail, p, next_submitted);
    pthread_mutex_unlock(&c->mu);
    uv_async_send(&c->async);
    return 0;
}

static void handle_stop(bsf_sbi_client_t *c)
{
    c->stopped_loop = true;
    while (c->timers)
        post_run(c->timers, true);
    while (c->active)
        bsf_sbi_req_abort(c->active, "client stopping");
    bsf_sbi_pool_close_all(c->pool);
    uv_close((uv_handle_t *)&c->async, NULL);
    uv_close((uv_handle_t *)&c->sweep, NULL);
    uv_close((uv_handle_t *)&c->probe_timer, NULL);
}

static void on_async(uv_async_t *a)
{
    bsf_sbi_client_t *c = a->data;
    pthread_mutex_lock(&c->mu);
    req_t *list = c->queue_head;
    c->queue_head = c->queue_tail = NULL;
    post_t *posts = c->posts_head;
    c->posts_head = c->posts_tail = NULL;
    bool stopping = c->stopping;
    pthread_mutex_unlock(&c->mu);
    while (posts) {
        post_t *p = posts;
        posts = p->next_submitted;
        post_start(p);
        if (stopping)
            post_run(p, true);
    }
    while (list) {
        req_t *r = list;
        list = r->next_submitted;
        bsf_sbi_req_start(r);
        if (stopping)
            bsf_sbi_req_abort(r, "client stopping");
    }
    if (stopping && !c->stopped_loop)
        handle_stop(c);
}

static void on_sweep(uv_timer_t *t)
{
    bsf_sbi_client_t *c = t->data;
    bsf_sbi_pool_sweep(c->pool);
}

/* ---- SCP probes (seed §3.18) ------------------------------------------------------ */

static void on_probe_done(void *arg, const bsf_sbi_response_t *rsp)
{
    struct probe *p = arg;
    p->pending = false;
    /* any answer but a server error shows the SCP is there */
    bool ok = rsp->result == BSF_SBI_OK && rsp->status < 500;
    bsf_scp_table_probe(&p->c->scp, p->i, ok);
}

static void on_probe_timer(uv_timer_t *t)
{
    bsf_sbi_client_t *c = t->data;
    for (size_t i = 0; i < c->scp.n; i++) {
        struct probe *p = &c->probes[i];
        if (p->pending)
            continue;
        char uri[BSF_SBI_HOST_MAX + 160], root[BSF_SBI_HOST_MAX + 16];
        const bsf_sbi_uri_t *u = &c->scp.scps[i].parsed;
        bsf_sbi_uri_api_root(u, root, sizeof root);
        const char *prefix = strcmp(u->path, "/") == 0 ? "" : u->path;
        snprintf(uri, sizeof uri, "%s%s%s", root, prefix, c->scp_health_path);
        unsigned timeout = c->cfg.scp_health_interval_ms < 3000 ? c->cfg.scp_health_interval_ms
                                                                 : 3000;
        static const bsf_sbi_retry_profile_t once = {0};
        bsf_sbi_request_t q = {.method = "OPTIONS", .uri = uri, .timeout_ms = timeout,
                               .priority = -1, .direct = true, .retry = &once};
        char err[128];
        p->c = c;
        p->i = (int)i;
        p->pending = bsf_sbi_client_submit(c, &q, on_probe_done, p, err, sizeof err) == 0;
    }
}

json_t *bsf_sbi_client_scp_status(bsf_sbi_client_t *c)
{
    return bsf_scp_table_status(&c->scp, (int64_t)(bsf_clock_mono_ns() / 1000000u));
}

void bsf_sbi_client_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_sbi_client_t *c = ctx;
    bsf_sbi_client_stats_t st;
    bsf_sbi_client_stats(c, &st);
    static const char *const outcomes[] = {"answer", "timeout", "connect_error", "throttled"};
    const uint64_t requests[] = {st.answers, st.timeouts, st.connect_errors, st.throttled};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_sbi_client_requests_total", "counter",
                                "Outbound SBI requests, by outcome.", "outcome", outcomes,
                                requests);
    const bsf_metric_row_t rows[] = {
        {"bsf_sbi_client_retries_total", "counter", "Retries of outbound SBI requests.",
         st.retries},
        {"bsf_sbi_client_pending", "gauge", "Outbound SBI requests not completed.", st.pending},
    };
    BSF_METRICS_ROWS(out, rows);
    bsf_scp_table_write_metrics(&c->scp, (int64_t)(bsf_clock_mono_ns() / 1000000u), out);
}

static void *client_main(void *arg)
{
    bsf_sbi_client_t *c = arg;
    pthread_setname_np(pthread_self(), "bsf-sbi-client");
    uv_run(&c->loop, UV_RUN_DEFAULT);
    return NULL;
}

/* ---- start and stop ---------------------------------------------------------------- */

static void apply_defaults(bsf_sbi_client_config_t *cfg)
{
    if (!cfg->max_connections)
        cfg->max_connections = 4;
    if (!cfg->max_streams)
        cfg->max_streams = 128;
    if (!cfg->max_pending)
        cfg->max_pending = 100000;
    if (!cfg->connect_timeout_ms)
        cfg->connect_timeout_ms = 2000;
    if (!cfg->idle_timeout_ms)
        cfg->idle_timeout_ms = 60000;
    if (!cfg->scp_temp_unavailable_ms)
        cfg->scp_temp_unavailable_ms = 30000;
    if (!cfg->scp_health_failures)
        cfg->scp_health_failures = 3;
    if (!cfg->scp_health_successes)
        cfg->scp_health_successes = 1;
    if (!cfg->max_redirects)
        cfg->max_redirects = 3;
    if (!cfg->max_body_bytes)
        cfg->max_body_bytes = 1u << 20;
}

static int init_loop(bsf_sbi_client_t *c, char *err, size_t err_cap)
{
    bsf_sbi_pool_config_t pc = {.max_connections = c->cfg.max_connections,
                                .max_streams = c->cfg.max_streams,
                                .connect_timeout_ms = c->cfg.connect_timeout_ms,
                                .family = c->cfg.family,
                                .idle_timeout_ms = c->cfg.idle_timeout_ms,
                                .max_body_bytes = c->cfg.max_body_bytes};
    if (uv_loop_init(&c->loop)) {
        snprintf(err, err_cap, "cannot create the SBI client loop");
        return -1;
    }
    c->pool = bsf_sbi_pool_new(&c->loop, &pc, c->tls);
    if (!c->pool || uv_async_init(&c->loop, &c->async, on_async)) {
        snprintf(err, err_cap, "cannot create the SBI client loop");
        bsf_sbi_pool_free(c->pool);
        uv_loop_close(&c->loop);
        return -1;
    }
    c->async.data = c;
    uv_timer_init(&c->loop, &c->sweep);
    c->sweep.data = c;
    uv_timer_start(&c->sweep, on_sweep, SWEEP_MS, SWEEP_MS);
    uv_timer_init(&c->loop, &c->probe_timer);
    c->probe_timer.data = c;
    if (c->scp.n && c->cfg.scp_health_interval_ms)
        uv_timer_start(&c->probe_timer, on_probe_timer, c->cfg.scp_health_interval_ms,
                       c->cfg.scp_health_interval_ms);
    return 0;
}

static void discard_loop(bsf_sbi_client_t *c)
{
    uv_close((uv_handle_t *)&c->async, NULL);
    uv_close((uv_handle_t *)&c->sweep, NULL);
    uv_close((uv_handle_t *)&c->probe_timer, NULL);
    uv_run(&c->loop, UV_RUN_DEFAULT);
    uv_loop_close(&c->loop);
    bsf_sbi_pool_free(c->pool);
}

int bsf_sbi_client_start(const bsf_sbi_client_config_t *cfg, bsf_sbi_client_t **out,
                         char *err, size_t err_cap)
{
    if (!cfg->nf_instance_id || !*cfg->nf_instance_id) {
        snprintf(err, err_cap, "the SBI client needs the NF instance id");
        return -1;
    }
    bsf_sbi_client_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    c->cfg = *cfg;
    apply_defaults(&c->cfg);
    snprintf(c->nf_instance_id, sizeof c->nf_instance_id, "%s", cfg->nf_instance_id);
    snprintf(c->fqdn, sizeof c->fqdn, "%s", cfg->fqdn ? cfg->fqdn : "");
    c->cfg.nf_instance_id = c->nf_instance_id;
    c->cfg.fqdn = c->fqdn;
    c->cfg.tls_ca_file = c->cfg.tls_cert_file = c->cfg.tls_key_file = NULL;
    c->cfg.tls_ciphers = c->cfg.tls_ciphersuites = c->cfg.tls_groups = NULL;
    if (!bsf_sbi_user_agent(c->nf_instance_id, c->fqdn, c->user_agent, sizeof c->user_agent) ||
        !(c->tls = bsf_h2_tls_ctx_new(cfg->tls_ca_file, cfg->tls_verify, cfg->tls_cert_file,
                                      cfg->tls_key_file, err, err_cap)) ||
        bsf_h2_tls_ctx_protocol(c->tls, cfg->tls_ciphers, cfg->tls_ciphersuites,
                                cfg->tls_groups, err, err_cap)) {
        if (!c->tls && !*err)
            snprintf(err, err_cap, "NF instance id or FQDN too long");
        SSL_CTX_free(c->tls);
        free(c);
        return -1;
    }
    pthread_mutex_init(&c->mu, NULL);
    snprintf(c->scp_health_path, sizeof c->scp_health_path, "%s",
             cfg->scp_health_path && *cfg->scp_health_path ? cfg->scp_health_path : "/");
    c->cfg.scp_uris = c->cfg.scp_health_path = NULL;
    if (bsf_scp_table_init(&c->scp, cfg->scp_uris, c->cfg.scp_temp_unavailable_ms,
                           c->cfg.scp_health_failures, c->cfg.scp_health_successes, err,
                           err_cap) ||
        init_loop(c, err, err_cap)) {
        bsf_scp_table_destroy(&c->scp);
        SSL_CTX_free(c->tls);
        free(c);
        return -1;
    }
    if (pthread_create(&c->thread, NULL, client_main, c)) {
        snprintf(err, err_cap, "cannot start the SBI client thread");
        discard_loop(c);
        bsf_scp_table_destroy(&c->scp);
        SSL_CTX_free(c->tls);
        free(c);
        return -1;
    }
    *out = c;
    return 0;
}

void bsf_sbi_client_stop(bsf_sbi_client_t *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stopping = true;
    pthread_mutex_unlock(&c->mu);
    uv_async_send(&c->async);
    pthread_join(c->thread, NULL);
    uv_loop_close(&c->loop);
    bsf_sbi_pool_free(c->pool);
    bsf_scp_table_destroy(&c->scp);
    SSL_CTX_free(c->tls);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void bsf_sbi_client_stats(const bsf_sbi_client_t *c, bsf_sbi_client_stats_t *out)
{
    bsf_sbi_client_t *m = (bsf_sbi_client_t *)c;
    out->submitted = atomic_load(&m->submitted);
    out->completed = atomic_load(&m->completed);
    out->answers = atomic_load(&m->answers);
    out->timeouts = atomic_load(&m->timeouts);
    out->connect_errors = atomic_load(&m->connect_errors);
    out->retries = atomic_load(&m->retries);
    out->redirects = atomic_load(&m->redirects);
    out->throttled = atomic_load(&m->throttled);
    out->connections_opened = 0;
    out->pending = atomic_load(&m->pending);
}

void bsf_sbi_client_set_token_provider(bsf_sbi_client_t *c, const bsf_sbi_token_provider_t *p)
{
    pthread_mutex_lock(&c->mu);
    c->tokens = *p;
    pthread_mutex_unlock(&c->mu);
}

/* ---- submit ------------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t off;
} arena_t;

static const char *adup(arena_t *a, const char *s)
{
    char *at = a->p + a->off;
    const char *copy = bsf_str_pack_put(&at, s);
    a->off = (size_t)(at - a->p);
    return copy;
}

/* Checks what the caller gave; returns 0 or -1 with a reason. */
static int validate(const bsf_sbi_request_t *q, char *err, size_t cap)
{
    const char *vals[] = {q->content_type, q->correlation_info, q->callback,
                          q->routing_binding, q->binding, q->oauth_scope, q->target_nf_type};
    if (!q->method || !*q->method || !q->uri) {
        snprintf(err, cap, "method and URI are required");
        return -1;
    }
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (vals[i] && !bsf_sbi_header_value_valid(vals[i], HEADER_VALUE_MAX)) {
            snprintf(err, cap, "invalid header value");
            return -1;
        }
    if (q->n_headers > BSF_SBI_MAX_EXTRA_HEADERS) {
        snprintf(err, cap, "too many headers");
        return -1;
    }
    for (size_t i = 0; i < q->n_headers; i++)
        if (!q->headers[i].name || !q->headers[i].value ||
            !bsf_sbi_header_value_valid(q->headers[i].value, HEADER_VALUE_MAX)) {
            snprintf(err, cap, "invalid header");
            return -1;
        }
    if (q->priority != -1 && !bsf_sbi_priority_valid(q->priority)) {
        snprintf(err, cap, "message priority must be 0..31");
        return -1;
    }
    return 0;
}

/* The apiPrefix of q->api_root in r->target.path (its length). Returns 0, or -1 when the
 * URI does not begin with that apiRoot. */
static int api_prefix(const bsf_sbi_request_t *q, req_t *r, char *err, size_t cap)
{
    if (!q->api_root)
        return 0;
    size_t n = strlen(q->api_root);
    while (n && q->api_root[n - 1] == '/')
        n--;
    bsf_sbi_uri_t root;
    char why[96];
    if (strncmp(q->uri, q->api_root, n) != 0 || !strchr("/?", q->uri[n]) ||
        bsf_sbi_uri_parse(q->api_root, n, &root, why, sizeof why) || strchr(root.path, '?')) {
        snprintf(err, cap, "api_root %.*s is not the start of the URI", (int)(n > 200 ? 200 : n),
                 q->api_root);
        return -1;
    }
    size_t pl = strcmp(root.path, "/") == 0 ? 0 : strlen(root.path);
    if (strncmp(r->target.path, root.path, pl) != 0) {
        snprintf(err, cap, "api_root: the URI's path does not begin with its prefix");
        return -1;
    }
    r->api_prefix_len = pl;
    return 0;
}

/* The copy of a request that the client thread works on. */
static req_t *copy_request(const bsf_sbi_request_t *q, char *err, size_t cap)
{
    if (validate(q, err, cap))
        return NULL;
    req_t *r = malloc(sizeof *r);
    if (r)
        memset(r, 0, offsetof(req_t, target));
    size_t total = bsf_str_pack_size(q->method) + bsf_str_pack_size(q->content_type) +
                   bsf_str_pack_size(q->correlation_info) + bsf_str_pack_size(q->callback) +
                   bsf_str_pack_size(q->routing_binding) + bsf_str_pack_size(q->binding) +
                   bsf_str_pack_size(q->oauth_scope) + bsf_str_pack_size(q->target_nf_type) +
                   q->body_len + 1;
    for (size_t i = 0; i < q->n_headers; i++)
        total += bsf_str_pack_size(q->headers[i].name) + bsf_str_pack_size(q->headers[i].value);
    arena_t a = {.p = r ? malloc(total) : NULL};
    if (!a.p) {
        free(r);
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    r->strings = a.p;
    if (bsf_sbi_uri_parse(q->uri, strlen(q->uri), &r->target, err, cap) ||
        (q->scp_uri && bsf_sbi_uri_parse(q->scp_uri, strlen(q->scp_uri), &r->scp, err, cap))) {
        bsf_sbi_req_free(r);
        return NULL;
    }
    if (api_prefix(q, r, err, cap)) {
        bsf_sbi_req_free(r);
        return NULL;
    }
    r->via_scp = q->scp_uri != NULL;
    r->method = adup(&a, q->method);
    r->content_type = adup(&a, q->content_type);
    r->correlation_info = adup(&a, q->correlation_info);
    r->callback = adup(&a, q->callback);
    r->routing_binding = adup(&a, q->routing_binding);
    r->binding = adup(&a, q->binding);
    r->oauth_scope = adup(&a, q->oauth_scope);
    r->target_nf_type = adup(&a, q->target_nf_type);
    for (size_t i = 0; i < q->n_headers; i++)
        r->headers[i] = (bsf_sbi_header_t){adup(&a, q->headers[i].name),
                                           adup(&a, q->headers[i].value)};
    r->n_headers = q->n_headers;
    if (q->body_len)
        memcpy(a.p + a.off, q->body, q->body_len);
    r->body = a.p + a.off;
    r->body_len = q->body_len;
    r->priority = q->priority;
    r->metric = q->metric;
    r->timeout_ms = q->timeout_ms ? q->timeout_ms : 5000;
    r->retry = q->retry ? *q->retry : bsf_sbi_retry_default;
    return r;
}

int bsf_sbi_client_submit(bsf_sbi_client_t *c, const bsf_sbi_request_t *q,
                          bsf_sbi_done_fn done, void *arg, char *err, size_t err_cap)
{
    req_t *r = copy_request(q, err, err_cap);
    if (!r)
        return -1;
    r->client = c;
    r->done = done;
    r->arg = arg;
    r->scp_auto = !q->direct && !q->scp_uri && c->scp.n > 0;
    pthread_mutex_lock(&c->mu);
    if (r->oauth_scope && !c->tokens.get) {
        pthread_mutex_unlock(&c->mu);
        snprintf(err, err_cap, "an oauth_scope needs a token provider");
        bsf_sbi_req_free(r);
        return -1;
    }
    if (c->stopping || atomic_load(&c->pending) >= c->cfg.max_pending) {
        bool stopping = c->stopping;
        pthread_mutex_unlock(&c->mu);
        snprintf(err, err_cap, stopping ? "the SBI client is stopping"
                                        : "too many requests pending");
        bsf_sbi_req_free(r);
        return -1;
    }
    atomic_fetch_add(&c->pending, 1);
    atomic_fetch_add(&c->submitted, 1);
    BSF_FIFO_APPEND(c->queue_head, c->queue_tail, r, next_submitted);
    pthread_mutex_unlock(&c->mu);
    uv_async_send(&c->async);
    return 0;
}
