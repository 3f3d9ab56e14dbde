/* The state shared by the Nbsf_Management router (nbsf_service.c), the answers
 * (nbsf_exchange.c) and the operations (pcf_bindings.c). */
#ifndef BSF_GATEWAYS_SBI_NBSF_INTERNAL_H
#define BSF_GATEWAYS_SBI_NBSF_INTERNAL_H

#include <msgpack.h>
#include <stdatomic.h>

#include "engine/read.h"
#include "gateways/sbi/nbsf_service.h"
#include "gateways/sbi/sbi_feed.h"

struct bsf_nbsf_service {
    bsf_nbsf_config_t cfg;
    char api_root[256];
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_h2_server_t *servers[BSF_NBSF_MAX_LISTENERS]; /* [0]: the h2 config's address */
    unsigned n_servers;
    unsigned n_workers; /* over all servers */
    size_t max_body_bytes;
    bsf_sbi_metrics_t *metrics; /* one per worker */
    atomic_uint writes_in_flight; /* taken by the engine, not yet answered */
};

/* Per worker thread: its read handle (kept for the worker's life) and reusable buffers. */
typedef struct {
    bsf_nbsf_service_t *svc;
    bsf_h2_worker_t *worker;
    bsf_sbi_metrics_t *metrics;
    bsf_read_t *reader;
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
    char subscriber[72]; /* SUPI or GPSI for the error log (seed §3.9); "" unless it wants it */
} bsf_nbsf_request_t;

#endif
