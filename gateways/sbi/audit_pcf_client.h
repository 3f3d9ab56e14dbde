/* The audit's way to PCFs (audit/audit_pcf.h) over the SBI client: the audit query is a GET
 * of the binding's notificationUrl, alternate-routed to another PCF of the binding's set when
 * its PCF fails (sbi_alt_route.h); an alternate PCF of a set (the 404 quorum) is found with
 * Nnrf_NFDiscovery (TS 29.510 §5.3.2.2: target-nf-type=PCF, requester-nf-type=BSF,
 * target-nf-set-id) through nf_discovery.h: every NRF of nrf.uri in order, results cached
 * for their validityPeriod. Callbacks run on the SBI client's thread. */
#ifndef BSF_GATEWAYS_SBI_AUDIT_PCF_CLIENT_H
#define BSF_GATEWAYS_SBI_AUDIT_PCF_CLIENT_H

#include "audit/audit_pcf.h"
#include "gateways/sbi/nf_discovery.h"
#include "gateways/sbi/sbi_alt_route.h"
#include "gateways/sbi/sbi_client.h"

typedef struct bsf_audit_pcf_client bsf_audit_pcf_client_t;

/* `discovery`: NULL or without NRFs: no alternate PCFs; `alt`: NULL: queries go to the
 * notificationUrl only. Returns NULL when out of memory. None is owned; all outlive this.
 * Main thread. */
bsf_audit_pcf_client_t *bsf_audit_pcf_client_create(bsf_sbi_client_t *sbi,
                                                    bsf_nf_discovery_t *discovery,
                                                    bsf_sbi_alt_route_t *alt);
/* Fills `out` with this client's functions. */
void bsf_audit_pcf_client_bind(bsf_audit_pcf_client_t *c, bsf_audit_pcf_t *out);
/* After the audit stopped (no query out). NULL is ignored. */
void bsf_audit_pcf_client_free(bsf_audit_pcf_client_t *c);

/* Picks from an Nnrf_NFDiscovery SearchResult (JSON text) the API root of the first PCF
 * whose "PCF-<nfInstanceId>" and "host:port" are not among the `n` in `exclude`. Returns 0
 * with `out` set, or -1 (none, or not a SearchResult). Pure; any thread. */
int bsf_audit_pick_alternate(const char *body, size_t len, const char *const *exclude, size_t n,
                             char *out, size_t cap);

#endif
