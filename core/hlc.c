#include "core/hlc.h"

uint64_t bsf_hlc_tick(bsf_hlc_t *clock, uint64_t now_ms)
{
    uint64_t physical = BSF_HLC_FROM_MS(now_ms);
    clock->last = physical > clock->last ? physical : clock->last + 1;
    return clock->last;
}

void bsf_hlc_observe(bsf_hlc_t *clock, uint64_t remote)
{
    if (remote > clock->last)
        clock->last = remote;
}
