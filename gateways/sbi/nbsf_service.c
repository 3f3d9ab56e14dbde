#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/clock.h"
#include "common/diag.h"
#include "core/sbi_time.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/nbsf_internal.h"
#include "gateways/sbi/nbsf_opstate.h"
#include "gateways/sbi/pcf_bindings.h"
#include "gateways/sbi/pcf_mbs_bindings.h"
#include "gateways/sbi/pcf_ue_bindings.h"
#include "gateways/sbi/sbi_error_log.h"
#include "gateways/sbi/subscriptions.h"

#define API_PREFIX "/nbsf-management/v1/"

/* ---- routing ----------------------------------------------------------------------- */

static void problem(bsf_nbsf_request_t *rq, bsf_cause_t cause, const char *detail)
{
    bsf_problem_t p;
    bsf_problem_set(&p, cause, "%s", detail);
    bsf_nbsf_respond_problem(rq, &p, NULL);
}

/* Seed §3.21 late arrival: the request is stale when its origination (else sender) time
 * plus the maximum response time lies in the past. Missing or invalid headers disable it. */
static bool arrived_too_late(const bsf_h2_request_t *r)
{
    const char *start = bsf_nbsf_header(r, "3gpp-sbi-origination-timestamp");
    if (!start)
        start = bsf_nbsf_header(r, "3gpp-sbi-sender-timestamp");
    const char *max = bsf_nbsf_header(r, "3gpp-sbi-max-rsp-time");
    if (!start || !max)
        return false;
    int64_t t0 = bsf_sbi_time_parse(start, strlen(start));
    char *end;
    long long budget = strtoll(max, &end, 10);
    if (t0 < 0 || *end || end == max || budget < 0)
        return false;
    return (int64_t)bsf_clock_wall_ms() > t0 + budget;
}

/* RFC 6750 §3: checks the access token before anything of the request is parsed; answers
 * 401 / 403 with WWW-Authenticate and returns false when it is refused. */
static bool authorized(bsf_nbsf_request_t *rq, const bsf_oauth2_t *o, const bsf_h2_request_t *r)
{
    char why[BSF_PROBLEM_TEXT_MAX];
    bsf_oauth2_verdict_t v = bsf_oauth2_check(o, bsf_nbsf_header(r, "authorization"),
                                              (int64_t)(bsf_clock_wall_ms() / 1000), why,
                                              sizeof why);
    if (v == BSF_OAUTH2_OK)
        return true;
    static const char *const challenge[] = {
        [BSF_OAUTH2_NO_TOKEN] = "Bearer",
        [BSF_OAUTH2_INVALID_TOKEN] = "Bearer error=\"invalid_token\"",
        [BSF_OAUTH2_INSUFFICIENT_SCOPE] = "Bearer error=\"insufficient_scope\", scope=\""
                                          BSF_OAUTH2_SCOPE "\"",
    };
    bsf_h2_header_t h = {"www-authenticate", challenge[v]};
    const char *q = memchr(r->path, '?', r->path_len);
    snprintf(rq->instance, sizeof rq->instance, "%.*s",
             (int)(q ? (size_t)(q - r->path) : r->path_len), r->path);
    bsf_problem_t p;
    bsf_problem_set(&p, v == BSF_OAUTH2_INSUFFICIENT_SCOPE ? BSF_CAUSE_INSUFFICIENT_SCOPE
                                                           : BSF_CAUSE_UNAUTHORIZED,
                    "%s", why);
    if (strcmp(r->method, "HEAD") == 0)
        bsf_nbsf_respond_headers(rq, bsf_cause_status(p.cause), &h, 1);
    else
        bsf_nbsf_respond_problem_with(rq, &p, NULL, &h, 1);
    return false;
}

#define EDGE_MAX_VALUES 8 /* header fields of one name looked at; more are refused */

/* The values of every field named `name`, in order. Returns their count, or
 * EDGE_MAX_VALUES + 1 when there are more. */
static size_t header_values(const bsf_h2_request_t *r, const char *name,
                            const char *values[EDGE_MAX_VALUES])
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcmp(r->headers[i].name, name) == 0) {
            if (n == EDGE_MAX_VALUES)
                return n + 1;
            values[n++] = r->headers[i].value;
        }
    return n;
}

static void set_instance(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r)
{
    const char *q = memchr(r->path, '?', r->path_len);
    snprintf(rq->instance, sizeof rq->instance, "%.*s",
             (int)(q ? (size_t)(q - r->path) : r->path_len), r->path);
}

/* Seed §3.24: the request must come through a configured SCP. Answers the configured error
 * and returns false when it does not. */
static bool xfcc_accepted(bsf_nbsf_request_t *rq, const bsf_xfcc_settings_t *x,
                          const bsf_h2_request_t *r)
{
    const char *values[EDGE_MAX_VALUES];
    size_t n = header_values(r, "x-forwarded-client-cert", values);
    char why[BSF_PROBLEM_TEXT_MAX];
    bsf_xfcc_verdict_t v = n > EDGE_MAX_VALUES ? BSF_XFCC_INVALID
                                               : bsf_xfcc_check(x, values, n, why, sizeof why);
    if (v == BSF_XFCC_OK)
        return true;
    if (n > EDGE_MAX_VALUES)
        snprintf(why, sizeof why, "more than %d xfcc header fields", EDGE_MAX_VALUES);
    char detail[BSF_PROBLEM_TEXT_MAX + 64];
    snprintf(detail, sizeof detail, "%s: %s", bsf_xfcc_verdict_name(v), why);
    set_instance(rq, r);
    bsf_nbsf_respond_custom_problem(rq, strcmp(r->method, "HEAD") == 0, (int)x->error_status,
                                    "XFCC validation failed", x->error_cause, detail);
    return false;
}

/* Seed §3.37: the consumer's NF type in User-Agent must be allowed. */
static bool user_agent_accepted(bsf_nbsf_request_t *rq, const bsf_user_agent_settings_t *u,
                                const bsf_h2_request_t *r)
{
    const char *values[EDGE_MAX_VALUES];
    size_t n = header_values(r, "user-agent", values);
    char why[BSF_PROBLEM_TEXT_MAX];
    if (bsf_user_agent_check(u, values, n, why, sizeof why) == BSF_UA_OK)
        return true;
    set_instance(rq, r);
    bsf_nbsf_respond_custom_problem(rq, strcmp(r->method, "HEAD") == 0, (int)u->error_status,
                                    "User-Agent validation failed", u->error_cause, why);
    return false;
}

static void route(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r)
{
    const char *q = memchr(r->path, '?', r->path_len);
    size_t path_len = q ? (size_t)(q - r->path) : r->path_len;
    size_t query_len = q ? r->path_len - path_len - 1 : 0;
    snprintf(rq->instance, sizeof rq->instance, "%.*s", (int)path_len, r->path);
    size_t plen = strlen(API_PREFIX);
    if (path_len < plen || memcmp(r->path, API_PREFIX, plen) != 0) {
        problem(rq, BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND, "no such resource");
        return;
    }
    const char *res = r->path + plen;
    size_t res_len = path_len - plen;
    if (bsf_nbsf_doc_route(&bsf_pcf_ue_bindings, rq, r, res, res_len, q ? q + 1 : NULL,
                           query_len) ||
        bsf_nbsf_doc_route(&bsf_pcf_mbs_bindings, rq, r, res, res_len, q ? q + 1 : NULL,
                           query_len) ||
        bsf_subscriptions_route(rq, r, res, res_len, q ? q + 1 : NULL, query_len))
        return;
    const char *id_text;
    size_t id_len;
    if (!bsf_nbsf_resource_match(res, res_len, "pcfBindings", &id_text, &id_len)) {
        problem(rq, BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND, "no such resource");
        return;
    }
    bool collection = id_len == 0;
    const char *m = r->method;
    if (collection && strcmp(m, "GET") == 0) {
        rq->op = BSF_SBI_OP_DISCOVER;
        bsf_pcf_bindings_discover(rq, q ? q + 1 : "", query_len);
        return;
    }
    /* GET on the collection went above; a write's query is refused below, by its name */
    if (bsf_nbsf_refuse_unless(rq, m, collection ? "GET, POST" : "DELETE, PATCH", false))
        return;
    if (q) {
        const char *amp = memchr(q + 1, '&', query_len), *eq = memchr(q + 1, '=', query_len);
        size_t n = query_len;
        if (amp && (size_t)(amp - q - 1) < n)
            n = (size_t)(amp - q - 1);
        if (eq && (size_t)(eq - q - 1) < n)
            n = (size_t)(eq - q - 1);
        char param[48];
        snprintf(param, sizeof param, "query %.*s", (int)(n < 40 ? n : 40), q + 1);
        bsf_nbsf_refuse_query(rq, m, param);
        return;
    }
    if (collection) {
        rq->op = BSF_SBI_OP_REGISTER;
        bsf_pcf_bindings_register(rq, r);
        return;
    }
    bsf_binding_id_t id;
    rq->op = m[0] == 'D' ? BSF_SBI_OP_DEREGISTER : BSF_SBI_OP_UPDATE;
    if (!bsf_binding_id_parse(id_text, id_len, &id)) {
        problem(rq, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "no PCF binding with this id");
        return;
    }
    if (rq->op == BSF_SBI_OP_DEREGISTER)
        bsf_pcf_bindings_deregister(rq, &id);
    else
        bsf_pcf_bindings_update(rq, r, &id);
}

/* ---- h2 server callbacks ----------------------------------------------------------- */

static const char *correlation_info(const bsf_h2_request_t *r)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcmp(r->headers[i].name, "3gpp-sbi-correlation-info") == 0)
            return r->headers[i].value;
    return NULL;
}

static void on_request(void *ctx, bsf_h2_worker_t *hw, bsf_h2_stream_t *s,
                       const bsf_h2_request_t *r)
{
    bsf_nbsf_service_t *svc = ctx;
    bsf_nbsf_request_t rq = {bsf_h2_worker_state(hw), s, BSF_SBI_OP_OTHER, r->received_ns, "",
                             NULL, ""};
    if (svc->cfg.feed)
        rq.feed = bsf_sbi_feed_request(svc->cfg.feed, s, r);
    if (bsf_sbi_errors_want_subscriber()) /* seed §3.9: off by default (personal data) */
        bsf_sbi_errors_subscriber(r, rq.subscriber, sizeof rq.subscriber);
    /* who forwarded and who sent it first, then what the token grants; nothing is parsed
     * or stored for a refused request */
    if (svc->cfg.xfcc && svc->cfg.xfcc->enabled && !xfcc_accepted(&rq, svc->cfg.xfcc, r))
        return;
    if (svc->cfg.user_agent && svc->cfg.user_agent->enabled &&
        !user_agent_accepted(&rq, svc->cfg.user_agent, r))
        return;
    if (svc->cfg.oauth2 && !authorized(&rq, svc->cfg.oauth2, r))
        return;
    if (bsf_nbsf_opstate_refused(&rq, r)) /* controlled shutdown, stopping */
        return;
    /* The lines written while the request is handled here name it (TS 29.500's
     * 3gpp-Sbi-Correlation-Info, e.g. "imsi-001010000000001"). */
    bsf_log_set_correlation(correlation_info(r));
    if (svc->cfg.late_arrival && arrived_too_late(r)) {
        snprintf(rq.instance, sizeof rq.instance, "%.*s", (int)r->path_len, r->path);
        problem(&rq, BSF_CAUSE_TIMED_OUT_REQUEST,
                "the request arrived after its maximum response time");
    } else {
        route(&rq, r);
    }
    bsf_log_set_correlation(NULL);
}

static void on_reject(void *ctx, bsf_h2_worker_t *hw, bsf_h2_stream_t *s, bsf_h2_reject_t why)
{
    bsf_nbsf_service_t *svc = ctx;
    bsf_nbsf_request_t rq = {bsf_h2_worker_state(hw), s, BSF_SBI_OP_OTHER, bsf_clock_mono_ns(),
                             "", NULL, ""};
    if (svc->cfg.feed)
        rq.feed = bsf_sbi_feed_refused(svc->cfg.feed, s);
    bsf_h2_stream_info_t info;
    bsf_h2_stream_info(s, &info);
    if (info.path) /* the instance is the path without its query; none when not received */
        snprintf(rq.instance, sizeof rq.instance, "%.*s", (int)strcspn(info.path, "?"),
                 info.path);
    switch (why) {
    case BSF_H2_REJECT_BODY_TOO_LARGE: {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_PAYLOAD_TOO_LARGE, "the request body exceeds %zu bytes",
                        svc->max_body_bytes);
        bsf_nbsf_respond_problem(&rq, &p, NULL);
        break;
    }
    case BSF_H2_REJECT_LENGTH_REQUIRED:
        problem(&rq, BSF_CAUSE_INCORRECT_LENGTH, "a content-length header is required");
        break;
    case BSF_H2_REJECT_URI_TOO_LONG:
        problem(&rq, BSF_CAUSE_URI_TOO_LONG, "the request URI is too long");
        break;
    case BSF_H2_REJECT_HEADERS_TOO_LARGE:
    default:
        problem(&rq, BSF_CAUSE_HEADERS_TOO_LARGE, "the request header list is too large");
        break;
    }
}

/* Admission control (issue 14) at header completion, before anything is parsed. */
static bool on_admit(void *ctx, bsf_h2_worker_t *hw, bsf_h2_stream_t *s, const bsf_h2_request_t *r)
{
    (void)hw;
    return bsf_sbi_admission_check(((bsf_nbsf_service_t *)ctx)->cfg.admission, s, r);
}

static bool on_admit_connection(void *ctx, uint32_t *max_streams)
{
    return bsf_sbi_admission_connection(((bsf_nbsf_service_t *)ctx)->cfg.admission, max_streams);
}

static size_t on_response_headers(void *ctx, bsf_h2_header_t *out, size_t cap)
{
    return bsf_sbi_admission_headers(((bsf_nbsf_service_t *)ctx)->cfg.admission, out, cap);
}

static void on_answered(void *ctx, const char *method, int status, int answer_priority)
{
    bsf_sbi_admission_answered(((bsf_nbsf_service_t *)ctx)->cfg.admission, method, status,
                               answer_priority);
}

static void on_abandon(void *ctx, void *pending)
{
    (void)ctx;
    bsf_nbsf_request_t *rq = pending;
    rq->stream = NULL;
}

static void *on_worker_init(void *ctx, bsf_h2_worker_t *hw)
{
    bsf_nbsf_service_t *svc = ctx;
    bsf_nbsf_worker_t *w = calloc(1, sizeof *w);
    if (!w || !msgpack_zone_init(&w->zone, 8192) || bsf_read_acquire(svc->store, &w->reader)) {
        BSF_ERROR("sbi", "out of memory starting a worker");
        abort();
    }
    w->svc = svc;
    w->worker = hw;
    w->metrics = &svc->metrics[bsf_h2_worker_index(hw)];
    msgpack_sbuffer_init(&w->doc);
    msgpack_sbuffer_init(&w->json);
    return w;
}

static void on_worker_fini(void *ctx, void *state)
{
    (void)ctx;
    bsf_nbsf_worker_t *w = state;
    bsf_read_release(w->reader);
    msgpack_zone_destroy(&w->zone);
    msgpack_sbuffer_destroy(&w->doc);
    msgpack_sbuffer_destroy(&w->json);
    free(w);
}

/* ---- lifecycle --------------------------------------------------------------------- */

/* Starts one HTTP/2 server per address, each with its own workers, numbered apart so that
 * each worker has its own metrics slot. */
static int start_servers(bsf_nbsf_service_t *svc, const bsf_h2_config_t *h2,
                         const bsf_h2_handler_t *handler, unsigned per_server, char *err,
                         size_t err_cap)
{
    for (unsigned i = 0; i <= svc->cfg.n_also; i++) {
        bsf_h2_config_t c = *h2;
        if (i) {
            c.host = svc->cfg.also[i - 1].host;
            c.port = svc->cfg.also[i - 1].port;
            c.tls_host = NULL; /* sbi.tls.listen is the primary server's: these are h2c */
            c.tls = NULL;
        }
        c.workers = per_server;
        c.worker_index_base = i * per_server;
        c.v6only = svc->cfg.n_also > 0; /* [::] beside 0.0.0.0: each family its own */
        if (bsf_h2_server_start(&c, handler, &svc->servers[i], err, err_cap)) {
            while (i--) {
                bsf_h2_server_stop(svc->servers[i], 0);
                bsf_h2_server_free(svc->servers[i]);
            }
            return -1;
        }
        svc->n_servers = i + 1;
    }
    return 0;
}

int bsf_nbsf_service_start(const bsf_nbsf_config_t *cfg, const bsf_h2_config_t *h2,
                           bsf_store_t *store, bsf_engine_t *engine, bsf_nbsf_service_t **out,
                           char *err, size_t err_cap)
{
    if (cfg->n_also >= BSF_NBSF_MAX_LISTENERS) {
        snprintf(err, err_cap, "at most %d SBI listeners", BSF_NBSF_MAX_LISTENERS);
        return -1;
    }
    bsf_nbsf_service_t *svc = calloc(1, sizeof *svc);
    unsigned per_server = h2->workers ? h2->workers : 1;
    unsigned workers = per_server * (cfg->n_also + 1);
    bsf_sbi_metrics_t *metrics = aligned_alloc(64, sizeof *metrics * workers);
    if (!svc || !metrics) {
        free(svc);
        free(metrics);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    memset(metrics, 0, sizeof *metrics * workers);
    svc->cfg = *cfg;
    snprintf(svc->api_root, sizeof svc->api_root, "%s", cfg->api_root);
    svc->cfg.api_root = svc->api_root;
    svc->store = store;
    svc->engine = engine;
    svc->n_workers = workers;
    svc->metrics = metrics;
    svc->max_body_bytes = h2->max_body_bytes;
    bsf_h2_handler_t handler = {.handle = on_request,
                                .reject = on_reject,
                                .abandon = on_abandon,
                                .worker_init = on_worker_init,
                                .worker_fini = on_worker_fini,
                                .ctx = svc};
    if (cfg->admission) {
        handler.admit = on_admit;
        handler.response_headers = on_response_headers;
        handler.admit_connection = on_admit_connection;
        handler.answered = on_answered;
    }
    if (start_servers(svc, h2, &handler, per_server, err, err_cap)) {
        free(metrics);
        free(svc);
        return -1;
    }
    *out = svc;
    return 0;
}

unsigned bsf_nbsf_service_wait_answered(bsf_nbsf_service_t *svc, unsigned timeout_ms)
{
    uint64_t end = bsf_clock_mono_ns() + (uint64_t)timeout_ms * 1000000u;
    unsigned left;
    while ((left = atomic_load(&svc->writes_in_flight)) && bsf_clock_mono_ns() < end) {
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return left;
}

void bsf_nbsf_service_drain(bsf_nbsf_service_t *svc)
{
    for (unsigned i = 0; i < svc->n_servers; i++)
        bsf_h2_server_drain(svc->servers[i]);
}

void bsf_nbsf_service_stop(bsf_nbsf_service_t *svc, unsigned timeout_ms)
{
    for (unsigned i = 0; i < svc->n_servers; i++)
        bsf_h2_server_drain(svc->servers[i]); /* all at once: the stops then run in parallel */
    for (unsigned i = 0; i < svc->n_servers; i++)
        bsf_h2_server_stop(svc->servers[i], timeout_ms);
}

void bsf_nbsf_service_free(bsf_nbsf_service_t *svc)
{
    if (!svc)
        return;
    for (unsigned i = 0; i < svc->n_servers; i++)
        bsf_h2_server_free(svc->servers[i]);
    free(svc->metrics);
    free(svc);
}

uint16_t bsf_nbsf_service_port(const bsf_nbsf_service_t *svc)
{
    return bsf_h2_server_port(svc->servers[0]);
}

uint16_t bsf_nbsf_service_port_of(const bsf_nbsf_service_t *svc, unsigned i)
{
    return i < svc->n_servers ? bsf_h2_server_port(svc->servers[i]) : 0;
}

uint16_t bsf_nbsf_service_tls_port(const bsf_nbsf_service_t *svc)
{
    return bsf_h2_server_tls_port(svc->servers[0]); /* the primary server's alone */
}

void bsf_nbsf_service_write_metrics(void *svc, bsf_text_t *out)
{
    const bsf_nbsf_service_t *s = svc;
    bsf_sbi_metrics_write(s->metrics, s->n_workers, out);
    bsf_h2_stats_t st;
    bsf_nbsf_service_h2_stats(s, &st);
    bsf_sbi_metrics_write_h2(&st, out);
}

uint64_t bsf_nbsf_service_answers(const bsf_nbsf_service_t *svc)
{
    return bsf_sbi_metrics_answers(svc->metrics, svc->n_workers);
}

void bsf_nbsf_service_h2_stats(const bsf_nbsf_service_t *svc, bsf_h2_stats_t *out)
{
    *out = (bsf_h2_stats_t){0};
    for (unsigned i = 0; i < svc->n_servers; i++) {
        bsf_h2_stats_t st;
        bsf_h2_server_stats(svc->servers[i], &st);
        for (unsigned t = 0; t < BSF_H2_TIMEOUT_COUNT; t++)
            out->timeouts[t] += st.timeouts[t];
        out->refused_streams += st.refused_streams;
        out->refused_connections += st.refused_connections;
        out->headers_too_large += st.headers_too_large;
        out->protocol_errors += st.protocol_errors;
        out->accept_errors += st.accept_errors;
        out->connections += st.connections;
        out->memory_bytes += st.memory_bytes;
        out->tls_handshakes += st.tls_handshakes;
        out->tls_failures += st.tls_failures;
        out->priority_reads += st.priority_reads;
    }
}

/* Streams in flight over every listener's server (`receiving`: those still being read). */
static size_t in_flight_of(void *svc, bool receiving)
{
    const bsf_nbsf_service_t *s = svc;
    size_t n = 0;
    for (unsigned i = 0; i < s->n_servers; i++)
        n += (size_t)bsf_h2_server_in_flight(s->servers[i], receiving);
    return n;
}

size_t bsf_nbsf_service_in_flight(void *svc)
{
    return in_flight_of(svc, false);
}

size_t bsf_nbsf_service_receiving(void *svc)
{
    return in_flight_of(svc, true);
}
