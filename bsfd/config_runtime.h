/* The keys that change while bsfd runs (BSF_CFG_LIVE in the key tables): what each one
 * changes in the running modules. Used by the configuration API (config_api.h) and SIGHUP.
 * Any thread; the callers serialise changes. */
#ifndef BSF_BSFD_CONFIG_RUNTIME_H
#define BSF_BSFD_CONFIG_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "bsfd/config.h"

/* Every BSF_CFG_LIVE key has an applier here, and every applier a BSF_CFG_LIVE key. Returns 0,
 * or -1 with the key named in err (a table out of step: a programming error). */
int bsf_config_runtime_check(char *err, size_t err_cap);
/* Whether key k has different values in a and b. */
bool bsf_config_runtime_differs(const bsf_config_t *a, const bsf_config_t *b,
                                const bsf_config_key_t *k);
/* Applies cfg's value of the runtime key k to the running modules. */
void bsf_config_runtime_apply(const bsf_config_t *cfg, const bsf_config_key_t *k);
/* Applies every runtime key of cfg (at start-up, after the overrides). */
void bsf_config_runtime_apply_all(const bsf_config_t *cfg);
/* The running NRF service the nrf.* runtime keys change (NULL: none; set once it started,
 * cleared before it stops). */
typedef struct bsf_nrf_service bsf_nrf_service_t;
void bsf_config_runtime_attach_nrf(bsf_nrf_service_t *nrf);
/* The running Rx gateway the diameter.congestion thresholds change (NULL: none; set once it
 * started, cleared before it stops). */
typedef struct bsf_rx_gateway bsf_rx_gateway_t;
void bsf_config_runtime_attach_rx(bsf_rx_gateway_t *rx);
/* Copies key k's field from `from` into `to` (both finished configurations). */
void bsf_config_runtime_copy(bsf_config_t *to, const bsf_config_t *from,
                             const bsf_config_key_t *k);

#endif
