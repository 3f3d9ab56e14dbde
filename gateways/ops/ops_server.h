/* The ops endpoint (HTTP/1.1, libmicrohttpd): health, Prometheus metrics and the
 * active-session count of seed §3.38. */
#ifndef BSF_GATEWAYS_OPS_OPS_SERVER_H
#define BSF_GATEWAYS_OPS_OPS_SERVER_H

#include <jansson.h>
#include <stdint.h>

#include "common/text.h"
#include "engine/engine.h"

typedef struct bsf_ops_server bsf_ops_server_t;

typedef struct {
    const char *host; /* the public listener (health, metrics); NULL or "": none */
    uint16_t port;
    /* The admin listener (routes that change state, issue 13 §5); admin_host NULL or "":
     * none. Credentials: TLS with cert+key, mTLS when admin_tls_ca is set too, a bearer token
     * when admin_token_file is set (paths, "" = not set; files are read at start). The
     * loopback rule is bsfd's configuration check. */
    const char *admin_host;
    uint16_t admin_port;
    const char *admin_tls_cert, *admin_tls_key, *admin_tls_ca;
    const char *admin_token_file;
    uint16_t site_id;
    bsf_store_t *store;
    bsf_engine_t *engine;
    /* Members added to GET /health/ready's answer (an object: ownership passes to the
     * server), or NULL for none; called on the ops thread. NULL: none. */
    json_t *(*health)(void *ctx);
    void *health_ctx;
} bsf_ops_config_t;

/* Starts the listeners that are configured. Returns 0 or -1 with a message (naming the
 * configuration key of an unreadable file). Start-up thread. */
int bsf_ops_server_start(const bsf_ops_config_t *cfg, bsf_ops_server_t **out, char *err,
                         size_t err_cap);
/* Ready = serving SBI; set once the SBI service has started, cleared when draining. */
void bsf_ops_server_set_ready(bsf_ops_server_t *ops, bool ready);
/* Adds a writer of Prometheus text called on every GET /metrics (on the ops thread; it must
 * read its numbers thread-safely). Call before bsf_ops_server_set_ready. Returns 0 or -1
 * (logged) when the table (32 providers) is full. */
typedef void (*bsf_ops_metrics_fn)(void *ctx, bsf_text_t *out);
int bsf_ops_server_add_metrics(bsf_ops_server_t *ops, bsf_ops_metrics_fn fn, void *ctx);
/* A management resource served by another module at `path` (kept by pointer: a string
 * literal). `fn` gets the method and the request body (NUL-terminated; NULL and 0 without
 * one) and returns the JSON answer (ownership passes to the server) with its HTTP status in
 * *status; statuses from 400 on go out as application/problem+json. It runs on the ops
 * thread. Call before bsf_ops_server_set_ready. Returns 0 or -1 when the table is full. */
typedef json_t *(*bsf_ops_route_fn)(void *ctx, const char *method, const char *body,
                                    size_t len, int *status);
int bsf_ops_server_add_route(bsf_ops_server_t *ops, const char *path, bsf_ops_route_fn fn,
                             void *ctx);
/* The same for a route that changes state: served on the admin listener only, after its
 * credentials are checked (401 / 403 otherwise); never on the public one. Returns 0, or -1
 * when the table is full or no admin listener is configured. */
int bsf_ops_server_add_admin_route(bsf_ops_server_t *ops, const char *path, bsf_ops_route_fn fn,
                                   void *ctx);
void bsf_ops_server_stop(bsf_ops_server_t *ops);
/* The bound ports (0 for a listener that is not configured). */
uint16_t bsf_ops_server_port(const bsf_ops_server_t *ops);
uint16_t bsf_ops_server_admin_port(const bsf_ops_server_t *ops);

#endif
