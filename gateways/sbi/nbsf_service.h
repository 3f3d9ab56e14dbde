/* The Nbsf_Management service on the HTTP/2 server: routing, the /pcfBindings operations,
 * and the hand-off of writes to the engine. */
#ifndef BSF_GATEWAYS_SBI_NBSF_SERVICE_H
#define BSF_GATEWAYS_SBI_NBSF_SERVICE_H

#include <stdbool.h>

#include "core/discovery.h"
#include "engine/engine.h"
#include "feed/feed.h"
#include "gateways/sbi/h2_server.h"
#include "gateways/sbi/sbi_oauth2.h"
#include "gateways/sbi/sbi_metrics.h"

typedef struct {
    const char *api_root; /* e.g. "http://127.0.0.1:8080", for Location headers */
    bsf_multiple_match_t multiple_match;
    bool late_arrival;
    bool pcf_cookie; /* keep the ocnf-service-cookie header of registrations (seed §3.3) */
    bsf_feed_t *feed; /* copies of requests and responses (seed §3.43); NULL: none */
    unsigned ipv6_min_prefix_len; /* shortest IPv6 prefix accepted in a binding (1..128) */
    const bsf_oauth2_t *oauth2; /* access tokens required when set (not owned; outlives the
                                 * service); NULL: none */
} bsf_nbsf_config_t;

typedef struct bsf_nbsf_service bsf_nbsf_service_t;

/* Starts the HTTP/2 server with the service's handlers. Returns 0 or -1 with a message. */
int bsf_nbsf_service_start(const bsf_nbsf_config_t *cfg, const bsf_h2_config_t *h2,
                           bsf_store_t *store, bsf_engine_t *engine, bsf_nbsf_service_t **out,
                           char *err, size_t err_cap);
void bsf_nbsf_service_drain(bsf_nbsf_service_t *svc);
void bsf_nbsf_service_stop(bsf_nbsf_service_t *svc, unsigned timeout_ms);
void bsf_nbsf_service_free(bsf_nbsf_service_t *svc);

/* The bound cleartext and TLS ports; 0 for a listener not configured. */
uint16_t bsf_nbsf_service_port(const bsf_nbsf_service_t *svc);
uint16_t bsf_nbsf_service_tls_port(const bsf_nbsf_service_t *svc);
/* The service's metrics (every worker's counters summed) as Prometheus text: a
 * bsf_ops_metrics_fn, registered with bsf_ops_server_add_metrics(ops, this, svc). Any thread. */
void bsf_nbsf_service_write_metrics(void *svc, bsf_text_t *out);
/* The HTTP/2 server's timeouts, refusals and memory, summed over the workers. Any thread. */
void bsf_nbsf_service_h2_stats(const bsf_nbsf_service_t *svc, bsf_h2_stats_t *out);

#endif
