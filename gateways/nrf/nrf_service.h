/* bsfd's outbound side as main.c starts and stops it: the NF instance id (configured, or
 * generated once and kept in the store), the SBI client, and the NRF client when nrf.uri
 * is set. Main thread. */
#ifndef BSF_GATEWAYS_NRF_NRF_SERVICE_H
#define BSF_GATEWAYS_NRF_NRF_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/ext_meta.h"
#include "gateways/nrf/nrf_settings.h"
#include "gateways/ops/ops_server.h"
#include "gateways/sbi/nf_discovery.h"
#include "gateways/sbi/sbi_alt_route.h"
#include "gateways/sbi/sbi_client.h"
#include "gateways/sbi/sbi_egress_settings.h"

typedef struct bsf_nrf_service bsf_nrf_service_t;

/* The ops route of the SCPs' state. */
#define BSF_SCP_STATUS_PATH "/oc-bsf-configuration/v1/scpStatus"

typedef struct {
    const bsf_nrf_settings_t *settings;
    bsf_store_t *store;             /* for the generated instance id */
    const char *listen_host;        /* sbi.listen */
    uint16_t listen_port;
    const char *api_root;           /* sbi.api_root */
    const char *rx_host, *rx_realm; /* NULL when the Rx gateway is off */
    unsigned (*load_fn)(void *ctx, unsigned fallback); /* see bsf_nrf_client_config_t */
    void *load_ctx;
    bool ignore_oci;                /* the SBI client ignores producers' OCI (overload.honour_oci) */
    /* alternate routing and NF discovery (config_keys_egress.c); NULL: off */
    const bsf_sbi_egress_settings_t *egress;
} bsf_nrf_service_config_t;

/* The NF instance id: nf.instance_id, or the one kept in the store, or a new one (UUID)
 * kept there at the first start. Main thread, store open. Returns 0 or -1 with a message
 * (store error). */
int bsf_nrf_service_resolve_instance_id(const bsf_nrf_settings_t *settings, bsf_store_t *store,
                                        char *out, size_t cap, char *err, size_t err_cap);
/* Returns 0 or -1 with a message (store, profile, client). Registration runs in the
 * background: bsfd serves whether or not an NRF answers. */
int bsf_nrf_service_start(const bsf_nrf_service_config_t *cfg, bsf_nrf_service_t **out,
                          char *err, size_t err_cap);
/* Adds the SCP and NRF status routes and metrics (before bsf_ops_server_set_ready). */
void bsf_nrf_service_attach_ops(bsf_nrf_service_t *s, bsf_ops_server_t *ops);
const char *bsf_nrf_service_instance_id(const bsf_nrf_service_t *s);
/* The SBI client, for other outbound flows. */
bsf_sbi_client_t *bsf_nrf_service_client(bsf_nrf_service_t *s);
/* NF discovery at the NRFs of nrf.uri (cached) and alternate routing over the SBI client;
 * owned by the service, valid until bsf_nrf_service_stop. */
bsf_nf_discovery_t *bsf_nrf_service_discovery(bsf_nrf_service_t *s);
bsf_sbi_alt_route_t *bsf_nrf_service_alt_route(bsf_nrf_service_t *s);
/* True when an NRF is configured; *registered then says whether it is registered with one.
 * Any thread; NULL: false. */
bool bsf_nrf_service_registered(bsf_nrf_service_t *s, bool *registered);
/* Passes the run-time changes of nrf.timeout_ms, nrf.retry_min_ms and nrf.retry_max_ms to the
 * NRF client (NULL s or no NRF: nothing). Any thread. */
void bsf_nrf_service_set_timers(bsf_nrf_service_t *s, const bsf_nrf_settings_t *settings);
/* NFDeregister (bounded by nrf.deregister_timeout_ms); first thing at shutdown. */
void bsf_nrf_service_deregister(bsf_nrf_service_t *s);
/* Stops the SBI client and frees everything (after the ops endpoint stopped). NULL: no-op. */
void bsf_nrf_service_stop(bsf_nrf_service_t *s);

#endif
