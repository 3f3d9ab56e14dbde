/* The Nbsf_Management service on the HTTP/2 server: routing, the /pcfBindings operations,
 * and the hand-off of writes to the engine. */
#ifndef BSF_GATEWAYS_SBI_NBSF_SERVICE_H
#define BSF_GATEWAYS_SBI_NBSF_SERVICE_H

#include <stdbool.h>

#include "core/discovery.h"
#include "engine/engine.h"
#include "feed/feed.h"
#include "gateways/sbi/h2_server.h"
#include "gateways/sbi/sbi_admission.h"
#include "gateways/sbi/sbi_oauth2.h"
#include "gateways/sbi/sbi_metrics.h"
#include "gateways/sbi/user_agent_check.h"
#include "gateways/sbi/xfcc.h"

#define BSF_NBSF_MAX_LISTENERS 4 /* sbi.listen and up to 3 of sbi.listen_also */

/* One more address the service listens on (dual stack: IPv4 and IPv6 at once). */
typedef struct {
    const char *host; /* numeric IPv4 or IPv6 address */
    uint16_t port;    /* 0: any free port */
} bsf_nbsf_listen_t;

typedef struct {
    const char *api_root; /* e.g. "http://127.0.0.1:8080", for Location headers */
    bsf_multiple_match_t multiple_match;
    bool late_arrival;
    bool pcf_cookie; /* keep the ocnf-service-cookie header of registrations (seed §3.3) */
    bsf_feed_t *feed; /* copies of requests and responses (seed §3.43); NULL: none */
    unsigned ipv6_min_prefix_len; /* shortest IPv6 prefix accepted in a binding (1..128) */
    uint64_t sub_max_expiry_ms; /* subscriptions.max_expiry: longest lifetime granted; 0: any */
    const bsf_oauth2_t *oauth2; /* access tokens required when set (not owned; outlives the
                                 * service); NULL: none */
    /* Who may call (issue 13 §4; not owned, outlive the service; NULL or not enabled: no
     * check): the SCP named in x-forwarded-client-cert, the consumer's User-Agent. */
    const bsf_xfcc_settings_t *xfcc;
    const bsf_user_agent_settings_t *user_agent;
    /* Listeners beside the h2 config's host and port, with the same settings (own workers).
     * Copied at start. */
    bsf_nbsf_listen_t also[BSF_NBSF_MAX_LISTENERS - 1];
    unsigned n_also;
    bsf_sbi_admission_t *admission; /* admission control and the headers of every answer
                                     * (not owned; outlives the service); NULL: none */
} bsf_nbsf_config_t;

typedef struct bsf_nbsf_service bsf_nbsf_service_t;

/* Starts the HTTP/2 server with the service's handlers. Returns 0 or -1 with a message. */
int bsf_nbsf_service_start(const bsf_nbsf_config_t *cfg, const bsf_h2_config_t *h2,
                           bsf_store_t *store, bsf_engine_t *engine, bsf_nbsf_service_t **out,
                           char *err, size_t err_cap);
/* Waits until every write the engine took has been answered, or `timeout_ms` passed. Returns
 * the writes still unanswered (0: all). For a stop: call after bsf_opstate_begin_termination
 * (no new write is taken then) and before bsf_nbsf_service_drain, whose GOAWAY some clients
 * take as the end of every stream in flight. Main thread. */
unsigned bsf_nbsf_service_wait_answered(bsf_nbsf_service_t *svc, unsigned timeout_ms);
void bsf_nbsf_service_drain(bsf_nbsf_service_t *svc);
void bsf_nbsf_service_stop(bsf_nbsf_service_t *svc, unsigned timeout_ms);
void bsf_nbsf_service_free(bsf_nbsf_service_t *svc);

/* The bound cleartext and TLS ports; 0 for a listener not configured. */
uint16_t bsf_nbsf_service_port(const bsf_nbsf_service_t *svc);
/* The bound port of listener i (0: the h2 config's; 1..n_also: cfg.also[i - 1]); 0 when
 * there is no such listener. Cleartext ports only: the TLS listener is the primary
 * server's (bsf_nbsf_service_tls_port). */
uint16_t bsf_nbsf_service_port_of(const bsf_nbsf_service_t *svc, unsigned i);
uint16_t bsf_nbsf_service_tls_port(const bsf_nbsf_service_t *svc);
/* The service's metrics (every worker's counters summed) as Prometheus text: a
 * bsf_ops_metrics_fn, registered with bsf_ops_server_add_metrics(ops, this, svc). Any thread. */
void bsf_nbsf_service_write_metrics(void *svc, bsf_text_t *out);
/* The HTTP/2 server's timeouts, refusals and memory, summed over the workers. Any thread. */
/* Requests answered since start (every operation and status). Any thread. */
uint64_t bsf_nbsf_service_answers(const bsf_nbsf_service_t *svc);
void bsf_nbsf_service_h2_stats(const bsf_nbsf_service_t *svc, bsf_h2_stats_t *out);
/* Complete requests not answered yet, and admitted requests whose body is still coming
 * (bsf_admission_count_fn; ctx: the service). Any thread. */
size_t bsf_nbsf_service_in_flight(void *svc);
size_t bsf_nbsf_service_receiving(void *svc);

#endif
