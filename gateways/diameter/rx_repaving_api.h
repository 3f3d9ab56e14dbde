/* The management resources of connection repaving (seed §3.45) on the ops endpoint, with
 * Oracle's paths under /oc-bsf-configuration/v1/diameterRepaving:
 *
 *   POST .../triggerDisconnection  optional body {"invocationId": "..."}: a trigger.
 *        202 {"invocationId", "requestTimestamp", "outcome": "queued" | "disabled"}
 *        200 {"outcome": "duplicate"} for an id already queued, running or last processed
 *        503 when BSF_RX_REPAVE_QUEUE_MAX triggers wait already
 *   GET  .../config, PUT .../config {"enabled": true|false}: the feature switch and settings
 *   GET  .../status: running trigger, queue, last one, disconnections
 *
 * Each function has the bsf_ops_route_fn signature; ctx is the bsf_rx_repaving_t. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_REPAVING_API_H
#define BSF_GATEWAYS_DIAMETER_RX_REPAVING_API_H

#include <jansson.h>
#include <stddef.h>

#define BSF_RX_REPAVING_API "/oc-bsf-configuration/v1/diameterRepaving"
#define BSF_RX_REPAVING_TRIGGER_PATH BSF_RX_REPAVING_API "/triggerDisconnection"
#define BSF_RX_REPAVING_CONFIG_PATH BSF_RX_REPAVING_API "/config"
#define BSF_RX_REPAVING_STATUS_PATH BSF_RX_REPAVING_API "/status"

json_t *bsf_rx_repaving_api_trigger(void *ctx, const char *method, const char *body, size_t len,
                                    int *status);
json_t *bsf_rx_repaving_api_config(void *ctx, const char *method, const char *body, size_t len,
                                   int *status);
json_t *bsf_rx_repaving_api_status(void *ctx, const char *method, const char *body, size_t len,
                                   int *status);

#endif
