/* The NRF client (TS 29.510 Nnrf_NFManagement): NFRegister, heartbeats by NFUpdate (JSON
 * Patch of nfStatus and load) every heartBeatTimer the NRF granted, re-registration after a
 * 404, NFDeregister at shutdown; several NRFs by priority with health (seed §3.42);
 * autonomous retries until success. bsfd serves traffic whether or not an NRF is reachable.
 * The NRFs' health is the view shared with discovery and tokens (nrf_health.h): a failure
 * any of them sees moves heartbeats to the next healthy NRF.
 *
 * Its state lives on the SBI client's thread (requests and timers of bsf_sbi_client); the
 * ops thread reads a snapshot under a mutex. */
#ifndef BSF_GATEWAYS_NRF_NRF_CLIENT_H
#define BSF_GATEWAYS_NRF_NRF_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/nrf/nrf_settings.h"
#include "gateways/sbi/nrf_health.h"
#include "gateways/sbi/sbi_client.h"

typedef struct bsf_nrf_client bsf_nrf_client_t;

typedef struct {
    const bsf_nrf_settings_t *settings; /* copied */
    const char *instance_id;
    const char *listen_host;            /* sbi.listen */
    uint16_t listen_port;
    const char *api_root;               /* sbi.api_root */
    const char *rx_host, *rx_realm;     /* NULL when the Rx gateway is off */
    /* The load (0..100) each heartbeat publishes, asked at each heartbeat on the SBI client's
     * thread (NF scoring, seed 3.41); NULL: nrf.load, fixed. */
    unsigned (*load_fn)(void *ctx, unsigned fallback);
    void *load_ctx;
    /* The NRFs and their health, shared with NF discovery and access tokens (not owned;
     * outlives the client); its URIs are nrf.uri's. */
    bsf_nrf_health_t *health;
} bsf_nrf_client_config_t;

/* The ops route of the NRF status (seed §3.16). */
#define BSF_NRF_STATUS_PATH "/oc-bsf-configuration/v1/nrfStatus"

/* Builds the profile and starts registering (nrf.uri must not be empty). `sbi` must outlive
 * the client until bsf_nrf_client_free. Returns 0 or -1 with a message (profile incomplete).
 * Main thread. */
int bsf_nrf_client_start(const bsf_nrf_client_config_t *cfg, bsf_sbi_client_t *sbi,
                         bsf_nrf_client_t **out, char *err, size_t err_cap);

/* Stops heartbeats and sends NFDeregister to the NRF in use; waits at most
 * nrf.deregister_timeout_ms (plus a little) for the answer. Main thread, once. */
void bsf_nrf_client_deregister(bsf_nrf_client_t *n);

/* True while registered with an NRF (heartbeats answered). Any thread. */
bool bsf_nrf_client_registered(bsf_nrf_client_t *n);
/* New request timeout and registration back-off (nrf.timeout_ms, nrf.retry_min_ms,
 * nrf.retry_max_ms; retry_min <= retry_max), taken by the client thread for the requests and
 * retries after this call. Any thread. */
void bsf_nrf_client_set_timers(bsf_nrf_client_t *n, unsigned timeout_ms, unsigned retry_min_ms,
                               unsigned retry_max_ms);

/* Frees the client: after bsf_sbi_client_stop (no callback may come any more). NULL: no-op. */
void bsf_nrf_client_free(bsf_nrf_client_t *n);

/* The status as JSON (GET only; others 405). An bsf_ops_route_fn; ops thread. */
json_t *bsf_nrf_client_status_route(void *ctx, const char *method, const char *body, size_t len,
                                    int *status);
/* Prometheus text of the NRF client (bsf_ops_metrics_fn); any thread. */
void bsf_nrf_client_write_metrics(void *ctx, bsf_text_t *out);

#endif
