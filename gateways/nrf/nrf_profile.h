/* The NFProfile (TS 29.510 §6.1.6.2.2) bsfd registers: nfType BSF, addresses, PLMNs,
 * slices, set ids, priority, capacity, load, allowed NF types, the nbsf-management service
 * (nfServices and nfServiceList) and bsfInfo. Pure. */
#ifndef BSF_GATEWAYS_NRF_NRF_PROFILE_H
#define BSF_GATEWAYS_NRF_NRF_PROFILE_H

#include <jansson.h>
#include <stdint.h>

#include "gateways/nrf/nrf_settings.h"

/* The version of TS 29.521's Nbsf_Management API served (its OpenAPI info.version). */
#define BSF_NBSF_API_FULL_VERSION "1.5.0"

typedef struct {
    const bsf_nrf_settings_t *settings;
    const char *instance_id;
    const char *nf_status;   /* "REGISTERED", "SUSPENDED", ... */
    const char *listen_host; /* sbi.listen's address ("0.0.0.0", "::": not published) */
    uint16_t listen_port;
    const char *api_root;    /* sbi.api_root: scheme and apiPrefix come from it */
    const char *rx_host;     /* Rx gateway's identity and realm; NULL: not published */
    const char *rx_realm;
    unsigned load;           /* 0..100 */
} bsf_nrf_profile_input_t;

/* A new JSON object (caller owns), or NULL when out of memory or a setting cannot be put in
 * the profile (err says which; the settings were checked, so this is rare). */
json_t *bsf_nrf_profile_build(const bsf_nrf_profile_input_t *in, char *err, size_t err_cap);

/* The heartbeat's JSON Patch (RFC 6902): replace /nfStatus and /load. Caller owns. */
json_t *bsf_nrf_heartbeat_patch(const char *nf_status, unsigned load);

#endif
