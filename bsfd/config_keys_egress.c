/* Configuration keys of egress alternate routing (seed §3.23, issue 10 §3) and of NF
 * discovery at the NRFs (gateways/sbi/sbi_alt_route.h, nf_discovery.h, docs/sbi-client.md). */
#include <stdio.h>

#include "bsfd/config.h"
#include "gateways/sbi/sbi_alt_route.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("sbi_client.alternate_route.enabled", egress.alt_enabled, "true",
        "Alternate routing (seed 3.23): an egress request whose producer fails is sent again to "
        "another producer of its NF set (from its 3gpp-Sbi-Routing-Binding / 3gpp-Sbi-Binding, "
        "else the set the flow names) found by Nnrf_NFDiscovery at the NRFs of `nrf.uri`. "
        "Used by the audit's PCF queries. Without `nrf.uri`: off."),
    BSF_CFG_UINT_KEY("sbi_client.alternate_route.max_alternates", egress.alt_max, "2", 0,
        BSF_SBI_ALT_MAX,
        "Alternate producers tried after the first one failed, within the request's deadline; "
        "then the request fails with \"retry budget exhausted\". Each one gets the request's "
        "own retries (its retry profile) first."),
    BSF_CFG_LIST_KEY("sbi_client.alternate_route.statuses", egress.alt_statuses,
        "500,502,503,504", 127,
        "HTTP statuses (300-599) of a producer's answer that lead to an alternate producer "
        "(not when the SCP itself answered them: that is SCP reselection)."),
    BSF_CFG_BOOL_KEY("sbi_client.alternate_route.on_timeout", egress.alt_on_timeout, "true",
        "A producer that did not answer in time is replaced by an alternate."),
    BSF_CFG_BOOL_KEY("sbi_client.alternate_route.on_connect_error", egress.alt_on_connect_error,
        "true", "A producer that cannot be connected to (or lost the connection) is replaced by "
        "an alternate."),
    BSF_CFG_UINT_KEY("nrf.discovery.cache_size", egress.disc_cache_size, "1024", 0, 1000000,
        "Nnrf_NFDiscovery results kept, each for the validityPeriod of its SearchResult (at most "
        "`nrf.discovery.max_validity`); a search within it asks no NRF. 0: none kept."),
    BSF_CFG_DURATION_KEY("nrf.discovery.timeout", egress.disc_timeout_ms, "2s", "10ms", "60s",
        "Deadline of one Nnrf_NFDiscovery request; an NRF that does not answer in time or answers "
        "one of `nrf.failure_codes` is followed by the next healthy one of `nrf.uri`."),
    BSF_CFG_DURATION_KEY("nrf.discovery.max_validity", egress.disc_max_validity_ms, "1h", "1s",
        "30d", "Longest time a SearchResult is kept, whatever validityPeriod the NRF gives."),
};

/* The status list must parse (as sbi_alt_route.c reads it). */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    bsf_sbi_alt_config_t ac = {.statuses = cfg->egress.alt_statuses};
    char why[160];
    bsf_sbi_alt_route_t *probe = bsf_sbi_alt_route_create(NULL, NULL, &ac, why, sizeof why);
    if (!probe) {
        snprintf(err, err_cap, "sbi_client.alternate_route.statuses: %s", why);
        return -1;
    }
    bsf_sbi_alt_route_free(probe);
    return 0;
}

const bsf_config_section_t bsf_config_egress_section = {keys, sizeof keys / sizeof keys[0],
                                                        finish};
