/* The NRFs by priority and their health (seed §3.42): the first healthy one in the
 * configured order is used; one that failed is avoided until its unhealthy time ends. Pure;
 * the caller serialises access. */
#ifndef BSF_GATEWAYS_NRF_NRF_SELECT_H
#define BSF_GATEWAYS_NRF_NRF_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/nrf/nrf_settings.h"

typedef struct {
    char uri[256];                /* apiRoot, no trailing '/' */
    int64_t unhealthy_until_ms;   /* monotonic; 0: healthy */
    unsigned successive_failures, successive_successes;
} bsf_nrf_peer_t;

typedef struct {
    bsf_nrf_peer_t peers[BSF_NRF_MAX_NRFS];
    size_t n;
} bsf_nrf_select_t;

/* From the nrf.uri list. Returns the number of NRFs (0: none configured). */
size_t bsf_nrf_select_init(bsf_nrf_select_t *s, const char *uri_list);

/* The first NRF, in priority order, healthy at now_ms and not in `skip` (a bit per index;
 * those already tried in this procedure). Returns its index or -1. */
int bsf_nrf_select_pick(const bsf_nrf_select_t *s, int64_t now_ms, uint32_t skip);

/* When the next unhealthy NRF becomes healthy again (ms from now_ms), -1 when none is
 * unhealthy. */
int64_t bsf_nrf_select_next_recovery(const bsf_nrf_select_t *s, int64_t now_ms);

void bsf_nrf_select_failed(bsf_nrf_select_t *s, int i, int64_t now_ms, int64_t for_ms);
void bsf_nrf_select_succeeded(bsf_nrf_select_t *s, int i);
bool bsf_nrf_select_healthy(const bsf_nrf_select_t *s, int i, int64_t now_ms);

#endif
