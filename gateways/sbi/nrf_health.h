/* One view of the NRFs and their health (seed §3.42), shared by every NRF user: the NRF
 * client (NFManagement: register, heartbeat, deregister), NF discovery (nf_discovery.h) and
 * access tokens (gateways/nrf/nrf_token.h). The NRFs are those of `nrf.uri` in that order
 * (the first is the primary). A failure seen by any user (no connection, no answer in time,
 * one of the failure statuses; Retry-After) marks that NRF unhealthy for every user: for
 * the Retry-After period when the answer has one, else for the configured period. A user
 * asks for the NRF to use with `pick`: the first healthy one in priority order among those
 * it has not tried yet in its procedure; when every NRF is unhealthy, the one that failed
 * least recently (the primary on a tie), so that no procedure goes silent.
 *
 * Threads: the users run on the SBI client's thread; the ops endpoint reads the view from
 * its own thread. Every function takes the view's mutex for its own duration (none calls
 * out while holding it), so any function may be called from any thread. The URIs are fixed
 * at creation: the pointer bsf_nrf_health_uri returns stays valid for the view's life. */
#ifndef BSF_GATEWAYS_SBI_NRF_HEALTH_H
#define BSF_GATEWAYS_SBI_NRF_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/text.h"
#include "gateways/sbi/sbi_client.h"

#define BSF_NRF_HEALTH_MAX 8

typedef struct bsf_nrf_health bsf_nrf_health_t;

typedef struct {
    const char *uris;          /* NRF apiRoots, '\n'-separated, by priority; NULL: none */
    unsigned unhealthy_ms;     /* a failed NRF is avoided that long; 0: 30000 */
    const char *failure_codes; /* statuses that are a failure of the NRF: codes 300..599
                                  separated by ',', ';' or '\n'; NULL/"": 429,500,502,503,504 */
    unsigned primary_retries;  /* retries of one request at the primary (§3.42) */
    unsigned alternate_retries;/* alternate NRFs tried after the first NRF of a procedure */
} bsf_nrf_health_config_t;

/* Returns NULL with a message (a bad failure code list, out of memory). No URI is fine: the
 * count is then 0 and `pick` returns -1. */
bsf_nrf_health_t *bsf_nrf_health_create(const bsf_nrf_health_config_t *cfg, char *err,
                                        size_t err_cap);
void bsf_nrf_health_free(bsf_nrf_health_t *h); /* NULL: no-op */

size_t bsf_nrf_health_count(const bsf_nrf_health_t *h); /* NULL: 0 */
/* The apiRoot of NRF i (no trailing '/'), NULL when i is out of range. */
const char *bsf_nrf_health_uri(const bsf_nrf_health_t *h, int i);

/* The NRF to use next, not in `tried` (a bit per index): see above. -1 when every NRF was
 * tried, or none is configured. */
int bsf_nrf_health_pick(bsf_nrf_health_t *h, uint32_t tried);
/* The first healthy NRF in priority order, -1 when none is healthy. */
int bsf_nrf_health_first_healthy(bsf_nrf_health_t *h);
bool bsf_nrf_health_healthy(bsf_nrf_health_t *h, int i);
/* May a procedure that already tried `n_tried` NRFs try another (alternate_retries)? */
bool bsf_nrf_health_may_try(const bsf_nrf_health_t *h, unsigned n_tried);
/* The retry profile of one request to NRF i within timeout_ms: primary_retries at the
 * primary, none at an alternate; a Retry-After ends the retries. */
void bsf_nrf_health_retry_profile(const bsf_nrf_health_t *h, int i, unsigned timeout_ms,
                                  bsf_sbi_retry_profile_t *out);

/* True when `rsp` is a failure of the NRF itself: no answer (not an SCP's own failure), a
 * failure status, or a Retry-After. */
bool bsf_nrf_health_is_failure(const bsf_nrf_health_t *h, const bsf_sbi_response_t *rsp);
/* The outcome of a request to NRF i: a failure marks it unhealthy (Retry-After honoured,
 * else the configured period); another answer marks it healthy. Returns true for a
 * failure. An SCP's own failure says nothing of the NRF: no change, false. */
bool bsf_nrf_health_report(bsf_nrf_health_t *h, int i, const bsf_sbi_response_t *rsp);
/* Direct marks, for tests and callers without a response: failed for `for_ms` (0: the
 * configured period), succeeded. */
void bsf_nrf_health_failed(bsf_nrf_health_t *h, int i, int64_t for_ms);
void bsf_nrf_health_succeeded(bsf_nrf_health_t *h, int i);

/* The NRFs as the ops endpoint shows them: [{uri, priority, health, successiveFailures,
 * successiveSuccesses, unhealthyForMs}] (a new reference; NULL: out of memory). */
json_t *bsf_nrf_health_json(bsf_nrf_health_t *h);
/* Prometheus lines bsf_nrf_operative_status{nrf="..."} 0|1 (after the HELP/TYPE lines). */
void bsf_nrf_health_write_metrics(bsf_nrf_health_t *h, bsf_text_t *out);

#endif
