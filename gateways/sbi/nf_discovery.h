/* Nnrf_NFDiscovery (TS 29.510 §5.3.2.2) over the SBI client, with a cache.
 *
 * A search asks the NRFs of the shared health view (nrf_health.h) in its order: the first
 * healthy one by priority (the primary first), the next after a failure (no answer, one of
 * nrf.failure_codes, Retry-After: that NRF is then unhealthy for the NRF client and the
 * tokens too), within nrf.primary_retries and nrf.alternate_retries; another answer ends
 * the search. When every NRF is unhealthy, the least recently failed one is asked.
 * A SearchResult is kept for its validityPeriod (seconds, at most max_validity_ms; 0: not
 * kept), so a search for the same query within it asks no NRF; searches of a query that is
 * already being asked wait for that answer. Used by alternate routing
 * (sbi_alt_route.h) and the audit's alternate PCF (audit_pcf_client.h). */
#ifndef BSF_GATEWAYS_SBI_NF_DISCOVERY_H
#define BSF_GATEWAYS_SBI_NF_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/text.h"
#include "gateways/sbi/nrf_health.h"
#include "gateways/sbi/sbi_client.h"

typedef struct bsf_nf_discovery bsf_nf_discovery_t;

typedef struct {
    bsf_nrf_health_t *nrfs;        /* the NRFs (not owned, outlives the discovery); NULL or
                                      none configured: no discovery */
    const char *requester_nf_instance_id; /* requester-nf-instance-id; NULL: not sent */
    unsigned timeout_ms;           /* per NRF asked; 0: 2000 */
    unsigned cache_size;           /* results kept; 0: none */
    uint64_t max_validity_ms;      /* cap of an NRF's validityPeriod; 0: 1 h */
} bsf_nf_discovery_config_t;

typedef struct {
    const char *target_nf_type;    /* required: "PCF", ... (upper case letters, digits, _) */
    const char *target_nf_set_id;  /* NULL: any set */
    const char *service_name;      /* service-names; NULL: any */
} bsf_nf_discovery_query_t;

typedef struct {
    bool ok;                       /* a SearchResult: nf_instances is its array */
    json_t *nf_instances;          /* borrowed during the callback */
    bool cached;                   /* from the cache, no NRF asked */
    const char *nrf;               /* the apiRoot of the NRF that answered; NULL when cached */
    unsigned nrfs_asked;
    const char *error;             /* !ok: why (every NRF failed, a refusal, a bad body) */
} bsf_nf_discovery_result_t;

/* Runs on the SBI client's thread, exactly once per accepted search; must not block. */
typedef void (*bsf_nf_discovery_done_fn)(void *arg, const bsf_nf_discovery_result_t *r);

/* Returns NULL when out of memory. `sbi` is not owned and outlives the discovery. */
bsf_nf_discovery_t *bsf_nf_discovery_create(bsf_sbi_client_t *sbi,
                                            const bsf_nf_discovery_config_t *cfg);
/* True when NRFs are configured. */
bool bsf_nf_discovery_enabled(const bsf_nf_discovery_t *d);
/* Starts a search. Any thread. Returns 0 (done is called once, later, on the SBI client's
 * thread, also for a cached result) or -1 (no NRF, a query value that is not a plain token,
 * client stopping, out of memory: done is never called). */
int bsf_nf_discovery_search(bsf_nf_discovery_t *d, const bsf_nf_discovery_query_t *q,
                            bsf_nf_discovery_done_fn done, void *arg);
/* After the SBI client stopped (no search out). NULL: no-op. */
void bsf_nf_discovery_free(bsf_nf_discovery_t *d);

typedef struct {
    uint64_t searches, cache_hits, nrf_requests, nrf_failovers, failed;
} bsf_nf_discovery_stats_t;
void bsf_nf_discovery_stats(bsf_nf_discovery_t *d, bsf_nf_discovery_stats_t *out);
/* Prometheus text (bsf_ops_metrics_fn). Any thread. */
void bsf_nf_discovery_write_metrics(void *ctx, bsf_text_t *out);

/* The apiRoot ("scheme://host:port[/apiPrefix]", TS 29.501 §4.4.1) and authority
 * ("host:port") of an NFProfile (TS 29.510 §6.1.6.2.2), built by core/api_root.h: its
 * NFService named `service_name` (NULL or none of that name: the first) of nfServiceList,
 * else of nfServices; the service's scheme; the host of its first IP end point (IPv4, else
 * IPv6 in brackets), else the service's fqdn, else the profile's fqdn, first IPv4 or IPv6
 * address; the end point's port, else the scheme's (80, 443); the service's apiPrefix.
 * Returns 0, or -1 (no address, a malformed prefix, too long). Pure; any thread. */
int bsf_nf_profile_api_root(json_t *profile, const char *service_name, char *root, size_t cap,
                            char *authority, size_t acap);

#endif
