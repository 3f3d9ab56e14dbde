#include "gateways/ops/ops_server.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/metrics_text.h"
#include "common/text.h"
#include "common/time_text.h"
#include "engine/read.h"
#include "gateways/ops/ops_admin_auth.h"
#include "gateways/ops/process_metrics.h"

/* Every module adds its own; a full table is a programming error, logged loudly (bsfd
 * registers a fixed set at start). */
#define MAX_PROVIDERS 32 /* metrics writers: one per module (14 with every one on) */
#define MAX_ROUTES 32
#define MAX_BODY 16384 /* bytes of a request body; management bodies are small */

typedef struct {
    bsf_ops_metrics_fn fn;
    void *ctx;
} provider_t;

typedef struct {
    const char *path;
    bsf_ops_route_fn fn;
    void *ctx;
} route_t;

/* One request being received: its body (routes' POST / PUT). */
typedef struct {
    char *body;
    size_t len;
    bool too_large;
} request_t;

typedef struct {
    route_t routes[MAX_ROUTES];
    atomic_size_t n;
} route_table_t;

struct bsf_ops_server {
    bsf_ops_config_t cfg;
    struct MHD_Daemon *daemon;       /* public: health, metrics, read-only routes */
    struct MHD_Daemon *admin_daemon; /* admin: routes that change state */
    bsf_ops_admin_auth_t *admin_auth;
    char *admin_pem[3]; /* cert, key, CA: libmicrohttpd keeps the pointers */
    atomic_bool ready;
    uint16_t port, admin_port;
    /* Registered before requests are served (start-up), read-only afterwards. */
    provider_t providers[MAX_PROVIDERS];
    atomic_size_t n_providers;
    route_table_t routes, admin_routes;
};

/* ---- responses --------------------------------------------------------------------- */

static enum MHD_Result send_buffer(struct MHD_Connection *conn, unsigned status,
                                   const char *type, char *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_json_as(struct MHD_Connection *conn, unsigned status,
                                    const char *type, json_t *root)
{
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    if (!text)
        return MHD_NO;
    return send_buffer(conn, status, type, text, strlen(text));
}

static enum MHD_Result send_json(struct MHD_Connection *conn, unsigned status, json_t *root)
{
    return send_json_as(conn, status, "application/json", root);
}

/* A route's answer: errors are ProblemDetails (RFC 7807). */
static enum MHD_Result send_route_answer(struct MHD_Connection *conn, unsigned status,
                                        json_t *root)
{
    return send_json_as(conn, status,
                        status >= 400 ? "application/problem+json" : "application/json", root);
}

/* ---- metrics ----------------------------------------------------------------------- */

/* One sample of bsf_active_bindings_by_<dimension>; ctx is the text. */
static void count_visit(void *ctx, const char *name, uint64_t value)
{
    bsf_text_t *t = ctx;
    const char *slash = strchr(name, '/');
    if (!slash)
        return;
    /* Label values are quoted; counter names never contain quotes or backslashes except
     * through PCF keys, which are validated FQDNs, UUIDs or addresses. */
    bsf_text_printf(t, "bsf_active_bindings_by_%.*s{%.*s=\"%s\"} %llu\n", (int)(slash - name),
                    name, (int)(slash - name), name, slash + 1, (unsigned long long)value);
}

/* The breakdowns are separate metrics: one metric with a dnn, an snssai and a pcf label
 * would count every binding three times when summed. */
static void active_binding_metrics(bsf_text_t *t, bsf_read_t *r)
{
    static const char *const dims[][2] = {
        {"dnn", "DNN"}, {"snssai", "S-NSSAI"}, {"pcf", "PCF (its FQDN, instance id or address)"}};
    bsf_metrics_u64_family(t, "bsf_active_bindings", "gauge",
                           "Active PCF bindings for a PDU session (seed 3.38's "
                           "oc_db_active_session_count).",
                           bsf_read_counter(r, "total"));
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        char prefix[16], name[48], help[96];
        snprintf(prefix, sizeof prefix, "%s/", dims[i][0]);
        snprintf(name, sizeof name, "bsf_active_bindings_by_%s", dims[i][0]);
        snprintf(help, sizeof help, "Active PCF bindings for a PDU session by %s.", dims[i][1]);
        bsf_metrics_family(t, name, "gauge", help);
        bsf_read_counters_each(r, prefix, count_visit, t);
    }
}

/* Seed 3.2's store-call latency: the engine's write transactions, begin to commit. */
static void repository_metrics(bsf_text_t *t, const bsf_engine_stats_t *st)
{
    static const double bounds[] = BSF_ENGINE_TXN_BOUNDS;
    _Static_assert(sizeof bounds / sizeof bounds[0] + 1 == BSF_ENGINE_TXN_BUCKETS,
                   "one +Inf bucket past the bounds");
    bsf_metrics_family(t, "data_repository_invocations_seconds", "histogram",
                       "Store calls: write transactions of the engine, from begin to commit.");
    bsf_metrics_histogram(t, &(bsf_metrics_histogram_t){
                                 .name = "data_repository_invocations_seconds",
                                 .bounds = bounds, .n_bounds = sizeof bounds / sizeof bounds[0],
                                 .counts = st->txn_buckets, .sum = (double)st->txn_ns_total / 1e9,
                                 .sum_decimals = 9, .count = st->txn_count});
}

static void store_space_metrics(bsf_text_t *t, bsf_ops_server_t *ops)
{
    bsf_read_space_t space;
    if (bsf_read_space(ops->cfg.store, &space) != 0)
        return;
    const bsf_metric_row_t rows[] = {
        {"bsf_store_free_bytes", "gauge",
         "Bytes writes can still take: the map past the data file, or the disk's free space "
         "when smaller, plus the file's free pages.",
         space.total},
        {"bsf_store_map_bytes", "gauge", "Size of the store's memory map (store.map_size_mb).",
         space.map},
        {"bsf_store_fs_free_bytes", "gauge", "Free space of the store's filesystem (statvfs).",
         space.fs_free == UINT64_MAX ? 0 : space.fs_free},
    };
    BSF_METRICS_ROWS(t, rows);
}

static void store_engine_metrics(bsf_text_t *t, bsf_ops_server_t *ops,
                                 const bsf_engine_stats_t *st)
{
    const bsf_metric_row_t head[] = {
        {"bsf_store_commands_total", "counter", "Commands the engine executed.", st->commands},
        {"bsf_store_events_total", "counter", "Events the engine appended to the log.",
         st->events},
        {"bsf_store_transactions_total", "counter",
         "Write transactions committed (commands / transactions is the group-commit factor).",
         st->batches},
        {"bsf_store_failed_transactions_total", "counter",
         "Write transactions that failed (each command then retried alone).",
         st->failed_batches},
    };
    BSF_METRICS_ROWS(t, head);
    bsf_metrics_double_family(t, "bsf_store_commit_seconds_total", "counter",
                              "Time spent committing write transactions (fsync included).", 9,
                              (double)st->commit_ns_total / 1e9);
    const bsf_metric_row_t tail[] = {
        {"bsf_store_tombstones_removed_total", "counter",
         "Tombstones collected after store.tombstone_horizon.", st->tombstones_removed},
        {"bsf_store_queue_depth", "gauge", "Commands waiting for the writer.", st->queue_depth},
        {"bsf_store_log_position", "gauge", "Position of the last event in the local log.",
         st->log_position},
        {"bsf_store_file_bytes", "gauge", "Size of the store's data file.",
         bsf_read_file_bytes(ops->cfg.store)},
        {"bsf_store_reserve_refusals_total", "counter",
         "Registrations refused (507) because less than store.reserve_percent of the map was "
         "free.",
         st->reserve_refusals},
        {"bsf_store_full", "gauge", "1 while registrations are refused for lack of space.",
         st->at_reserve ? 1 : 0},
        {"bsf_store_commit_window_waits_total", "counter",
         "Batches that waited in the commit window (store.commit_window_us) for more commands.",
         st->window_waits},
    };
    BSF_METRICS_ROWS(t, tail);
    bsf_metrics_double_family(t, "bsf_store_commit_window_seconds_total", "counter",
                              "Time batches waited in the commit window.", 9,
                              (double)st->window_wait_ns / 1e9);
}

static void store_metrics(bsf_text_t *t, bsf_ops_server_t *ops)
{
    bsf_engine_stats_t st;
    bsf_engine_stats(ops->cfg.engine, &st);
    store_engine_metrics(t, ops, &st);
    repository_metrics(t, &st);
    store_space_metrics(t, ops);
    bsf_read_t *r;
    if (bsf_read_acquire(ops->cfg.store, &r))
        return;
    if (bsf_read_begin(r)) {
        bsf_read_release(r);
        return;
    }
    active_binding_metrics(t, r);
    const bsf_metric_row_t rows[] = {
        {"bsf_active_ue_bindings", "gauge", "Active PCF for a UE bindings.",
         bsf_read_counter(r, "ue/total")},
        {"bsf_active_mbs_bindings", "gauge", "Active PCF for an MBS session bindings.",
         bsf_read_counter(r, "mbs/total")},
    };
    BSF_METRICS_ROWS(t, rows);
    bsf_read_release(r);
}

static enum MHD_Result serve_metrics(bsf_ops_server_t *ops, struct MHD_Connection *conn)
{
    bsf_text_t t = {0};
    bsf_process_metrics_write(&t);
    store_metrics(&t, ops);
    size_t n = atomic_load(&ops->n_providers);
    for (size_t i = 0; i < n; i++)
        ops->providers[i].fn(ops->providers[i].ctx, &t);
    if (t.failed || !t.data) {
        free(t.data);
        return MHD_NO;
    }
    return send_buffer(conn, 200, "text/plain; version=0.0.4", t.data, t.len);
}

/* ---- active session count ---------------------------------------------------------- */

typedef struct {
    json_t *obj;
    size_t prefix_len;
} json_counts_t;

static void json_count_visit(void *ctx, const char *name, uint64_t value)
{
    json_counts_t *c = ctx;
    json_object_set_new(c->obj, name + c->prefix_len, json_integer((json_int_t)value));
}

static json_t *counts_by(bsf_read_t *r, const char *prefix)
{
    json_counts_t c = {json_object(), strlen(prefix)};
    bsf_read_counters_each(r, prefix, json_count_visit, &c);
    return c.obj;
}

static enum MHD_Result serve_count(bsf_ops_server_t *ops, struct MHD_Connection *conn)
{
    bsf_read_t *r;
    if (bsf_read_acquire(ops->cfg.store, &r))
        return send_json(conn, 500, json_pack("{s:s}", "cause", "SYSTEM_FAILURE"));
    if (bsf_read_begin(r)) {
        bsf_read_release(r);
        return send_json(conn, 500, json_pack("{s:s}", "cause", "SYSTEM_FAILURE"));
    }
    char ts[32];
    bsf_time_format_rfc3339((int64_t)bsf_clock_wall_ms(), ts);
    json_t *root = json_pack("{s:I, s:s, s:o, s:o, s:o, s:I, s:I}", "count",
                             (json_int_t)bsf_read_counter(r, "total"), "timestamp", ts,
                             "byDnn", counts_by(r, "dnn/"), "bySnssai", counts_by(r, "snssai/"),
                             "byPcf", counts_by(r, "pcf/"), "ueBindingCount",
                             (json_int_t)bsf_read_counter(r, "ue/total"), "mbsBindingCount",
                             (json_int_t)bsf_read_counter(r, "mbs/total"));
    bsf_read_release(r);
    return send_json(conn, 200, root);
}

/* ---- dispatch ---------------------------------------------------------------------- */

static json_t *problem(int status, const char *title, const char *detail)
{
    return json_pack("{s:s, s:i, s:s}", "title", title, "status", status, "detail", detail);
}

static enum MHD_Result serve_route(const route_t *route, struct MHD_Connection *conn,
                                   const char *method, request_t *req)
{
    if (req->too_large)
        return send_route_answer(conn, 413, problem(413, "Payload Too Large",
                                                   "the request body exceeds 16384 bytes"));
    int status = 500;
    json_t *answer = route->fn(route->ctx, method, req->body, req->len, &status);
    if (!answer)
        answer = problem(500, "Internal Server Error", "the answer could not be made");
    return send_route_answer(conn, (unsigned)status, answer);
}

static const route_t *find_route(route_table_t *t, const char *url)
{
    size_t n = atomic_load(&t->n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t->routes[i].path, url) == 0)
            return &t->routes[i];
    return NULL;
}

static int add_route(route_table_t *t, const char *path, bsf_ops_route_fn fn, void *ctx)
{
    size_t n = atomic_load(&t->n);
    if (n == MAX_ROUTES) {
        BSF_ERROR("ops", "route table full: %s not served", path);
        return -1;
    }
    t->routes[n] = (route_t){path, fn, ctx};
    atomic_store(&t->n, n + 1);
    return 0;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)conn;
    (void)code;
    request_t *req = *state;
    if (req) {
        free(req->body);
        free(req);
        *state = NULL;
    }
}

/* Collects the request body. Returns MHD_YES when this call was part of the upload (the
 * caller returns it), MHD_NO on failure, and sets *done once the request is complete. */
static enum MHD_Result receive(const char *upload_data, size_t *upload_size, void **state,
                               bool *done)
{
    *done = false;
    if (!*state) {
        /* First call: headers only. The body (if any) comes next, then the last call. */
        request_t *req = calloc(1, sizeof *req);
        if (!req)
            return MHD_NO;
        *state = req;
        return MHD_YES;
    }
    request_t *req = *state;
    if (*upload_size) {
        /* Only routes take a body; anything past the limit is dropped and answered 413. */
        if (!req->too_large && req->len + *upload_size <= MAX_BODY) {
            char *grown = realloc(req->body, req->len + *upload_size + 1);
            if (!grown)
                return MHD_NO;
            memcpy(grown + req->len, upload_data, *upload_size);
            req->len += *upload_size;
            grown[req->len] = '\0';
            req->body = grown;
        } else {
            req->too_large = true;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    *done = true;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    bsf_ops_server_t *ops = cls;
    bool done;
    enum MHD_Result rc = receive(upload_data, upload_size, state, &done);
    if (!done)
        return rc;
    request_t *req = *state;
    const route_t *route = find_route(&ops->routes, url);
    if (route)
        return serve_route(route, conn, method, req);
    if (strcmp(method, "GET") != 0)
        return send_json(conn, 405, json_pack("{s:s}", "detail", "only GET is supported"));
    if (strcmp(url, "/health/live") == 0)
        return send_json(conn, 200, json_pack("{s:s}", "status", "alive"));
    if (strcmp(url, "/health/ready") == 0) {
        bool ready = atomic_load(&ops->ready);
        json_t *root = json_pack("{s:s}", "status", ready ? "ready" : "not ready");
        json_t *more = ops->cfg.health ? ops->cfg.health(ops->cfg.health_ctx) : NULL;
        if (root && json_is_object(more))
            json_object_update(root, more);
        json_decref(more);
        return send_json(conn, ready ? 200 : 503, root);
    }
    if (strcmp(url, "/metrics") == 0)
        return serve_metrics(ops, conn);
    if (strcmp(url, "/oc-bsf-configuration/v1/activeSessionCount/pcfBindings") == 0)
        return serve_count(ops, conn);
    return send_json(conn, 404, json_pack("{s:s}", "detail", "no such resource"));
}

/* ---- the admin listener ------------------------------------------------------------ */

static enum MHD_Result refuse_admin(struct MHD_Connection *conn, bsf_ops_admin_verdict_t v)
{
    static const char *const detail[] = {
        [BSF_OPS_ADMIN_NO_TOKEN] = "an admin bearer token is required",
        [BSF_OPS_ADMIN_BAD_TOKEN] = "the admin bearer token is not valid",
        [BSF_OPS_ADMIN_BAD_CERT] = "a client certificate signed by ops.admin_tls.ca is required",
    };
    unsigned status = v == BSF_OPS_ADMIN_BAD_CERT ? 403 : 401;
    json_t *root = problem((int)status, status == 403 ? "Forbidden" : "Unauthorized", detail[v]);
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    struct MHD_Response *r =
        text ? MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/problem+json");
    if (status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                v == BSF_OPS_ADMIN_BAD_TOKEN ? "Bearer error=\"invalid_token\""
                                                             : "Bearer");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* The admin daemon: credentials first (before the body is looked at), then its routes. */
static enum MHD_Result on_admin_request(void *cls, struct MHD_Connection *conn, const char *url,
                                        const char *method, const char *version,
                                        const char *upload_data, size_t *upload_size,
                                        void **state)
{
    (void)version;
    bsf_ops_server_t *ops = cls;
    if (!*state) {
        bsf_ops_admin_verdict_t v = bsf_ops_admin_auth_check(ops->admin_auth, conn);
        if (v != BSF_OPS_ADMIN_OK)
            return refuse_admin(conn, v); /* the body is never read */
    }
    bool done;
    enum MHD_Result rc = receive(upload_data, upload_size, state, &done);
    if (!done)
        return rc;
    const route_t *route = find_route(&ops->admin_routes, url);
    if (route)
        return serve_route(route, conn, method, *state);
    return send_route_answer(conn, 404, problem(404, "Not Found", "no such resource"));
}

/* ---- lifecycle --------------------------------------------------------------------- */

typedef union {
    struct sockaddr sa;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
} ops_addr_t;

/* A numeric address into *a; MHD_USE_IPv6 added to *flags for IPv6. Returns 0 or -1. */
static int numeric_addr(const char *host, uint16_t port, ops_addr_t *a, unsigned *flags)
{
    memset(a, 0, sizeof *a);
    if (inet_pton(AF_INET, host, &a->v4.sin_addr) == 1) {
        a->v4.sin_family = AF_INET;
        a->v4.sin_port = htons(port);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a->v6.sin6_addr) == 1) {
        a->v6.sin6_family = AF_INET6;
        a->v6.sin6_port = htons(port);
        *flags |= MHD_USE_IPv6;
        return 0;
    }
    return -1;
}

static uint16_t bound_port(struct MHD_Daemon *d, uint16_t configured)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : configured;
}

static int start_public(bsf_ops_server_t *ops, char *err, size_t err_cap)
{
    const bsf_ops_config_t *cfg = &ops->cfg;
    ops_addr_t a;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
    if (numeric_addr(cfg->host, cfg->port, &a, &flags)) {
        snprintf(err, err_cap, "ops listen address %s is not a numeric IP address", cfg->host);
        return -1;
    }
    ops->daemon = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, ops,
                                   MHD_OPTION_SOCK_ADDR, &a.sa, MHD_OPTION_CONNECTION_TIMEOUT,
                                   (unsigned)30, MHD_OPTION_NOTIFY_COMPLETED, on_completed, ops,
                                   MHD_OPTION_END);
    if (!ops->daemon) {
        snprintf(err, err_cap, "cannot listen on %s:%u for the ops endpoint", cfg->host,
                 cfg->port);
        return -1;
    }
    ops->port = bound_port(ops->daemon, cfg->port);
    return 0;
}

/* The admin listener's PEM files into memory (libmicrohttpd takes them as strings). */
static int read_admin_pems(bsf_ops_server_t *ops, char *err, size_t err_cap)
{
    const bsf_ops_config_t *cfg = &ops->cfg;
    const char *paths[3] = {cfg->admin_tls_cert, cfg->admin_tls_key, cfg->admin_tls_ca};
    static const char *const keys[3] = {"ops.admin_tls.cert", "ops.admin_tls.key",
                                        "ops.admin_tls.ca"};
    for (int i = 0; i < 3; i++)
        if (paths[i] && paths[i][0] &&
            !(ops->admin_pem[i] = bsf_ops_read_file(paths[i], 1u << 20, keys[i], err, err_cap)))
            return -1;
    return 0;
}

static int start_admin(bsf_ops_server_t *ops, char *err, size_t err_cap)
{
    const bsf_ops_config_t *cfg = &ops->cfg;
    ops_addr_t a;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
    if (numeric_addr(cfg->admin_host, cfg->admin_port, &a, &flags)) {
        snprintf(err, err_cap, "ops.admin_listen: %s is not a numeric IP address",
                 cfg->admin_host);
        return -1;
    }
    if (read_admin_pems(ops, err, err_cap) ||
        bsf_ops_admin_auth_create(cfg->admin_token_file, ops->admin_pem[2] != NULL,
                                  &ops->admin_auth, err, err_cap))
        return -1;
    struct MHD_OptionItem tls[4] = {{MHD_OPTION_END, 0, NULL}};
    if (ops->admin_pem[0]) {
        flags |= MHD_USE_TLS;
        tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, ops->admin_pem[0]};
        tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, ops->admin_pem[1]};
        if (ops->admin_pem[2])
            tls[2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, ops->admin_pem[2]};
    }
    ops->admin_daemon = MHD_start_daemon(
        flags, cfg->admin_port, NULL, NULL, on_admin_request, ops, MHD_OPTION_SOCK_ADDR, &a.sa,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
        ops, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!ops->admin_daemon) {
        snprintf(err, err_cap, "ops.admin_listen: cannot listen on %s:%u%s", cfg->admin_host,
                 cfg->admin_port,
                 ops->admin_pem[0] ? " (or ops.admin_tls.* cannot be used: check the files)" : "");
        return -1;
    }
    ops->admin_port = bound_port(ops->admin_daemon, cfg->admin_port);
    return 0;
}

int bsf_ops_server_start(const bsf_ops_config_t *cfg, bsf_ops_server_t **out, char *err,
                         size_t err_cap)
{
    bsf_ops_server_t *ops = calloc(1, sizeof *ops);
    if (!ops) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    ops->cfg = *cfg;
    if ((cfg->host && cfg->host[0] && start_public(ops, err, err_cap)) ||
        (cfg->admin_host && cfg->admin_host[0] && start_admin(ops, err, err_cap))) {
        bsf_ops_server_stop(ops);
        return -1;
    }
    *out = ops;
    return 0;
}

void bsf_ops_server_set_ready(bsf_ops_server_t *ops, bool ready)
{
    atomic_store(&ops->ready, ready);
}

int bsf_ops_server_add_metrics(bsf_ops_server_t *ops, bsf_ops_metrics_fn fn, void *ctx)
{
    size_t n = atomic_load(&ops->n_providers);
    if (n == MAX_PROVIDERS) {
        BSF_ERROR("ops", "metrics: more than %d providers, one is left out", MAX_PROVIDERS);
        return -1;
    }
    ops->providers[n] = (provider_t){fn, ctx};
    atomic_store(&ops->n_providers, n + 1);
    return 0;
}

int bsf_ops_server_add_route(bsf_ops_server_t *ops, const char *path, bsf_ops_route_fn fn,
                             void *ctx)
{
    return add_route(&ops->routes, path, fn, ctx);
}

int bsf_ops_server_add_admin_route(bsf_ops_server_t *ops, const char *path, bsf_ops_route_fn fn,
                                   void *ctx)
{
    return ops->admin_daemon ? add_route(&ops->admin_routes, path, fn, ctx) : -1;
}

void bsf_ops_server_stop(bsf_ops_server_t *ops)
{
    if (!ops)
        return;
    if (ops->daemon)
        MHD_stop_daemon(ops->daemon);
    if (ops->admin_daemon)
        MHD_stop_daemon(ops->admin_daemon);
    bsf_ops_admin_auth_free(ops->admin_auth);
    for (int i = 0; i < 3; i++) {
        if (ops->admin_pem[i])
            OPENSSL_cleanse(ops->admin_pem[i], strlen(ops->admin_pem[i]));
        free(ops->admin_pem[i]);
    }
    free(ops);
}

uint16_t bsf_ops_server_port(const bsf_ops_server_t *ops)
{
    return ops->port;
}

uint16_t bsf_ops_server_admin_port(const bsf_ops_server_t *ops)
{
    return ops->admin_port;
}
