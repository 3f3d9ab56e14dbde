/* Counters and latency histograms of the Rx gateway, written as Prometheus text. Updated
 * with relaxed atomics from freeDiameter's threads, read by the ops thread. Metric names
 * follow the seed where it gives them (ocbsf_diam_request_network_total with retry and
 * retryReason, ocbsf_diam_response_network_total, ocbsf_diam_realm_validation_failed_total,
 * ocbsf_ocnf_service_cookie_total). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_METRICS_H
#define BSF_GATEWAYS_DIAMETER_RX_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/diameter/rx_kind.h"

#define BSF_RX_CODE_SLOTS 5001 /* result codes 1000..5999, then "other" */
#define BSF_RX_RETRY_TIMEOUT (BSF_RX_CODE_SLOTS - 1) /* retry reason slot of a timeout */
#define BSF_RX_LATENCY_BUCKETS 14

typedef enum {
    BSF_RX_REALM_CHECK_OWN = 0,
    BSF_RX_REALM_CHECK_BINDING,
} bsf_rx_realm_check_t;

typedef enum {
    BSF_RX_LOOKUP_FOUND = 0,
    BSF_RX_LOOKUP_NOT_FOUND,
    BSF_RX_LOOKUP_ERROR,
} bsf_rx_lookup_result_t;

typedef enum {
    BSF_RX_STALE_REQUESTED = 0,
    BSF_RX_STALE_REMOVED,
    BSF_RX_STALE_ALREADY_GONE,
    BSF_RX_STALE_FAILED,
    BSF_RX_STALE_COUNT
} bsf_rx_stale_result_t;

typedef enum {
    BSF_RX_SESSION_EV_OPENED = 0,
    BSF_RX_SESSION_EV_CLOSED,
    BSF_RX_SESSION_EV_EXPIRED,
    BSF_RX_SESSION_EV_REFUSED,
    BSF_RX_SESSION_EV_COUNT
} bsf_rx_session_event_t;

typedef enum {
    BSF_RX_EV_PARSING_ERROR = 0,
    BSF_RX_EV_ROUTING_ERROR,
    BSF_RX_EV_DROPPED,
    BSF_RX_EV_FAILOVER,
    BSF_RX_EV_CONNECT_FAILED,
    BSF_RX_EV_CONNECTED,
    BSF_RX_EV_LOST, /* a request completed by the gateway's own deadline */
    BSF_RX_EV_COUNT
} bsf_rx_event_t;

typedef struct {
    atomic_uint_least64_t inbound[BSF_RX_KIND_COUNT];
    atomic_uint_least64_t network[BSF_RX_KIND_COUNT];                        /* first attempts */
    atomic_uint_least64_t retries[BSF_RX_KIND_COUNT][BSF_RX_CODE_SLOTS];     /* by reason */
    atomic_uint_least64_t responses[BSF_RX_KIND_COUNT][2][BSF_RX_CODE_SLOTS]; /* [retry] */
    atomic_uint_least64_t local[BSF_RX_KIND_COUNT][BSF_RX_CODE_SLOTS];
    atomic_uint_least64_t timeouts[BSF_RX_KIND_COUNT];
    atomic_uint_least64_t latency[BSF_RX_KIND_COUNT][BSF_RX_LATENCY_BUCKETS + 1];
    atomic_uint_least64_t latency_sum_ns[BSF_RX_KIND_COUNT];
    atomic_uint_least64_t realm_failed[2];
    atomic_uint_least64_t lookups[3];
    atomic_uint_least64_t stale[BSF_RX_STALE_COUNT];
    atomic_uint_least64_t sessions[BSF_RX_SESSION_EV_COUNT];
    atomic_uint_least64_t events[BSF_RX_EV_COUNT];
    atomic_uint_least64_t cookies;
} bsf_rx_metrics_t;

/* Allocates zeroed counters (they are large: one slot per result code). NULL on ENOMEM. */
bsf_rx_metrics_t *bsf_rx_metrics_new(void);
void bsf_rx_metrics_free(bsf_rx_metrics_t *m);
/* Requests received and requests sent to PCFs (first attempts), all kinds, since start: the
 * Diameter share of the site's TPS (NF scoring). Any thread. */
uint64_t bsf_rx_metrics_messages(const bsf_rx_metrics_t *m);

void bsf_rx_metrics_count_inbound(bsf_rx_metrics_t *m, bsf_rx_kind_t k);
/* A request sent to the next hop; `retry_code` is 0 for a first attempt, the result code
 * that caused the retry, or BSF_RX_RETRY_TIMEOUT. */
void bsf_rx_metrics_count_network(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint32_t retry_code);
void bsf_rx_metrics_count_response(bsf_rx_metrics_t *m, bsf_rx_kind_t k, bool retried,
                                   uint32_t code);
void bsf_rx_metrics_count_local(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint32_t code);
void bsf_rx_metrics_count_timeout(bsf_rx_metrics_t *m, bsf_rx_kind_t k);
/* Time from the request's arrival to the answer given to the requester. */
void bsf_rx_metrics_observe_latency(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint64_t ns);
void bsf_rx_metrics_count_realm_failed(bsf_rx_metrics_t *m, bsf_rx_realm_check_t c);
void bsf_rx_metrics_count_lookup(bsf_rx_metrics_t *m, bsf_rx_lookup_result_t r);
void bsf_rx_metrics_count_stale(bsf_rx_metrics_t *m, bsf_rx_stale_result_t r);
void bsf_rx_metrics_count_session(bsf_rx_metrics_t *m, bsf_rx_session_event_t e, uint64_t n);
void bsf_rx_metrics_count_event(bsf_rx_metrics_t *m, bsf_rx_event_t e);
void bsf_rx_metrics_count_cookie(bsf_rx_metrics_t *m);

/* Gauges are passed in: pending requests and their maximum, sessions. */
void bsf_rx_metrics_write(bsf_rx_metrics_t *m, uint64_t pending, uint64_t pending_max,
                          uint64_t sessions, bsf_text_t *out);

#endif
