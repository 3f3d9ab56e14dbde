/* Alternate routing of egress requests (seed §3.23; issue 10 §3): a request whose producer
 * fails (no connection, no answer in time, or one of the configured statuses, after the
 * request's own retries at that producer) is sent again to an alternate producer found by
 * Nnrf_NFDiscovery (nf_discovery.h, cached for the NRF's validityPeriod; every NRF in
 * order), at most `max_alternates` times and within the request's deadline.
 *
 * Which producers are alternates: those of the NF set the request's 3gpp-Sbi-Routing-
 * Binding or 3gpp-Sbi-Binding names (TS 29.500 §6.12: a binding to an instance without a
 * set allows none), else of the set the caller names, else any of the NF type; never one
 * already tried (by authority or NF instance id), never one that is not REGISTERED; the
 * lowest `priority` first. Through SCPs (Model C) the SCP's own failures are handled by SCP
 * reselection (sbi_client.h); only a failure of the target leads to an alternate.
 *
 * Callbacks run on the SBI client's thread, exactly once per accepted request. */
#ifndef BSF_GATEWAYS_SBI_SBI_ALT_ROUTE_H
#define BSF_GATEWAYS_SBI_SBI_ALT_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/sbi/nf_discovery.h"
#include "gateways/sbi/sbi_client.h"

typedef struct bsf_sbi_alt_route bsf_sbi_alt_route_t;

#define BSF_SBI_ALT_MAX 7

typedef struct {
    bool enabled;
    unsigned max_alternates;   /* 0..BSF_SBI_ALT_MAX */
    const char *statuses;      /* answers that lead to an alternate: codes 300..599 separated
                                  by ',', ';' or '\n'; NULL: "500,502,503,504" */
    bool on_timeout, on_connect_error;
} bsf_sbi_alt_config_t;

typedef struct {
    const char *nf_type;       /* the producer's NF type ("PCF"); NULL: no alternate */
    const char *nf_set_id;     /* alternates of this set when no binding header names one;
                                  NULL: any of the type */
    const char *service_name;  /* the service (service-names); NULL: any */
} bsf_sbi_alt_target_t;

/* `discovery` may be NULL or without NRFs: requests then go to their producer only. Neither
 * is owned; both outlive this. Returns NULL with a message (a bad status list, memory). */
bsf_sbi_alt_route_t *bsf_sbi_alt_route_create(bsf_sbi_client_t *sbi, bsf_nf_discovery_t *discovery,
                                              const bsf_sbi_alt_config_t *cfg, char *err,
                                              size_t err_cap);

/* Submits `req` (copied) to its producer, with alternates as above. Same contract as
 * bsf_sbi_client_submit: 0 and `done` is called once (client thread); -1 and it never is.
 * The response's `alternates` counts the alternate producers tried; when the last one
 * failed too, `error` says so ("retry budget exhausted: ..."), and when none was found,
 * why. Any thread. */
int bsf_sbi_alt_route_submit(bsf_sbi_alt_route_t *ar, const bsf_sbi_request_t *req,
                             const bsf_sbi_alt_target_t *target, bsf_sbi_done_fn done,
                             void *arg, char *err, size_t err_cap);

/* After the SBI client stopped. NULL: no-op. */
void bsf_sbi_alt_route_free(bsf_sbi_alt_route_t *ar);

typedef struct {
    uint64_t alternates_sent, answered_by_alternate, exhausted, no_alternate;
} bsf_sbi_alt_route_stats_t;
void bsf_sbi_alt_route_stats(bsf_sbi_alt_route_t *ar, bsf_sbi_alt_route_stats_t *out);
/* Prometheus text (bsf_ops_metrics_fn). Any thread. */
void bsf_sbi_alt_route_write_metrics(void *ctx, bsf_text_t *out);

#endif
