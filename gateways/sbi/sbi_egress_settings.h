/* Settings of alternate routing (seed §3.23, gateways/sbi/sbi_alt_route.h) and of NF
 * discovery at the NRFs (gateways/sbi/nf_discovery.h), as the key table
 * bsfd/config_keys_egress.c fills them. Plain data. */
#ifndef BSF_GATEWAYS_SBI_SBI_EGRESS_SETTINGS_H
#define BSF_GATEWAYS_SBI_SBI_EGRESS_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool alt_enabled;          /* sbi_client.alternate_route.enabled */
    uint32_t alt_max;          /* sbi_client.alternate_route.max_alternates */
    char alt_statuses[128];    /* sbi_client.alternate_route.statuses: '\n'-separated codes */
    bool alt_on_timeout;       /* sbi_client.alternate_route.on_timeout */
    bool alt_on_connect_error; /* sbi_client.alternate_route.on_connect_error */
    uint32_t disc_cache_size;  /* nrf.discovery.cache_size: entries, 0: no cache */
    uint64_t disc_timeout_ms;  /* nrf.discovery.timeout: per NRF asked */
    uint64_t disc_max_validity_ms; /* nrf.discovery.max_validity: cap of validityPeriod */
} bsf_sbi_egress_settings_t;

#endif
