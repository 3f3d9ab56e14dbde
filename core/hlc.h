/* Hybrid logical clock: 48 bits of Unix milliseconds, 16 bits of logical counter.
 * Events are ordered by HLC across sites; ties are broken by site id. */
#ifndef BSF_CORE_HLC_H
#define BSF_CORE_HLC_H

#include <stdint.h>

typedef struct {
    uint64_t last;
} bsf_hlc_t;

#define BSF_HLC_MS(h) ((uint64_t)(h) >> 16)
#define BSF_HLC_FROM_MS(ms) ((uint64_t)(ms) << 16)

/* A timestamp for a local event: greater than every timestamp issued or observed before. */
uint64_t bsf_hlc_tick(bsf_hlc_t *clock, uint64_t now_ms);
/* Takes a remote event's timestamp into account so later local events order after it. */
void bsf_hlc_observe(bsf_hlc_t *clock, uint64_t remote);

#endif
