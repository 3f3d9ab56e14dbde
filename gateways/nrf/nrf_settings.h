/* Settings of the NRF client and of the NF profile it registers (keys nrf.*, nf.*, in
 * bsfd/config_keys_nrf.c). Lists are stored as the configuration stores them: items
 * separated by '\n'. */
#ifndef BSF_GATEWAYS_NRF_NRF_SETTINGS_H
#define BSF_GATEWAYS_NRF_NRF_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_NRF_LIST_MAX 2048
#define BSF_NRF_MAX_NRFS 8

typedef struct {
    char uri[BSF_NRF_LIST_MAX];   /* NRF apiRoots by priority: the first is the primary */
    unsigned heartbeat_s;         /* heartBeatTimer proposed; the NRF's answer wins */
    unsigned timeout_ms;          /* of one NRF request, its retries included */
    unsigned primary_retries;     /* retries on the primary before the next NRF */
    unsigned alternate_retries;   /* retries on each alternate NRF */
    unsigned unhealthy_s;         /* an NRF that failed is avoided that long */
    char failure_codes[128];      /* statuses that are an NRF's failure, '\n'-separated */
    unsigned retry_min_ms;        /* autonomous re-attempts: first delay, doubling... */
    unsigned retry_max_ms;        /* ...up to this */
    unsigned deregister_timeout_ms; /* NFDeregister at shutdown, at most */
    unsigned load;                /* the load published (0..100) when NF scoring is off */

    char instance_id[64];         /* nf.instance_id; empty: generated and kept in the store */
    char fqdn[256];
    char plmn[BSF_NRF_LIST_MAX];  /* "mcc-mnc" items */
    char snssai[BSF_NRF_LIST_MAX];/* "sst" or "sst-sd" items */
    char set_id[BSF_NRF_LIST_MAX];
    char ipv4_addresses[BSF_NRF_LIST_MAX]; /* empty: sbi.listen's address when specific */
    unsigned priority, capacity;
    char allowed_nf_types[BSF_NRF_LIST_MAX];
    char bsf_ipv4_ranges[BSF_NRF_LIST_MAX];   /* "start-end" items */
    char bsf_ipv6_prefix_ranges[BSF_NRF_LIST_MAX]; /* "start-end" items (prefixes) */
    char bsf_dnn_list[BSF_NRF_LIST_MAX];
    char bsf_ip_domain_list[BSF_NRF_LIST_MAX];
    char bsf_group_id[128];
    bool bsf_rx_identity;         /* publish rxDiamHost/rxDiamRealm when Rx is enabled */

    /* the SBI client (sbi_client.*) */
    char client_tls_ca_file[1024];
    char client_tls_cert_file[1024], client_tls_key_file[1024];
    bool client_tls_verify;
    /* the SBI's protocol settings (sbi.tls.ciphers, .ciphersuites, .groups), for the client */
    char client_tls_ciphers[1024], client_tls_ciphersuites[256], client_tls_groups[256];
    unsigned client_max_connections, client_max_streams, client_connect_timeout_ms;
    int client_family; /* sbi_client.preferred_family: bsf_family_pref_t */

    /* SCPs of the SBI client (scp.*): Model C routing of every outbound request */
    char scp_uris[BSF_NRF_LIST_MAX];
    unsigned scp_temp_unavailable_s;
    unsigned scp_health_interval_ms;
    char scp_health_path[128];
    unsigned scp_health_failures, scp_health_successes;
} bsf_nrf_settings_t;

/* Checks formats (URIs, PLMNs, S-NSSAIs, ranges, the instance id's UUID form). Returns 0 or
 * -1 with a message naming the key. */
int bsf_nrf_settings_check(const bsf_nrf_settings_t *s, char *err, size_t err_cap);

/* True for the 8-4-4-4-12 hexadecimal UUID form TS 29.571 NfInstanceId wants. */
bool bsf_nrf_uuid_valid(const char *s);

#endif
