/* Shared between the Nbsf_Management router and its operations. */
#ifndef BSF_GATEWAYS_SBI_NBSF_INTERNAL_H
#define BSF_GATEWAYS_SBI_NBSF_INTERNAL_H

#include <msgpack.h>

#include "engine/reader.h"
#include "gateways/sbi/nbsf_service.h"
#include "gateways/sbi/sbi_feed.h"

struct bsf_nbsf_service {
    bsf_nbsf_config_t cfg;
    char api_root[256];
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_h2_server_t *server;
    unsigned n_workers;
    size_t max_body_bytes;
    bsf_sbi_metrics_t *metrics; /* one per worker */
};

/* Per worker thread: a renewable read transaction and reusable buffers. */
typedef struct {
    bsf_nbsf_service_t *svc;
    bsf_h2_worker_t *worker;
    bsf_sbi_metrics_t *metrics;
    bsf_reader_t reader;
    msgpack_zone zone;
    msgpack_sbuffer doc;  /* request body as msgpack */
    msgpack_sbuffer json; /* response body */
} bsf_nbsf_worker_t;

/* A request in progress: the context an answer needs once the engine is done. */
typedef struct {
    bsf_nbsf_worker_t *w;
    bsf_h2_stream_t *stream; /* NULL once the client went away */
    bsf_sbi_op_t op;
    uint64_t received_ns;
    char instance[96];       /* the request path, for ProblemDetails.instance */
    bsf_sbi_feed_txn_t *feed; /* owned; NULL when the feed is off (see sbi_feed.h) */
} bsf_nbsf_request_t;

void bsf_nbsf_respond_json(bsf_nbsf_request_t *rq, int status, const bsf_h2_header_t *headers,
                           size_t n_headers, const msgpack_sbuffer *body);
void bsf_nbsf_respond_problem(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                              const msgpack_object *binding);
/* The same with extra response headers (e.g. retry-after on a 503). */
void bsf_nbsf_respond_problem_headers(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                                      const bsf_h2_header_t *headers, size_t n_headers);
void bsf_nbsf_respond_empty(bsf_nbsf_request_t *rq, int status);

/* The /pcfBindings operations. */
void bsf_pcf_bindings_register(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r);
void bsf_pcf_bindings_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len);
void bsf_pcf_bindings_update(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                             const bsf_binding_id_t *id);
void bsf_pcf_bindings_deregister(bsf_nbsf_request_t *rq, const bsf_binding_id_t *id);

/* A request header by lowercase name, or NULL. */
const char *bsf_nbsf_header(const bsf_h2_request_t *r, const char *name);

#endif
