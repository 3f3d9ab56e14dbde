/* The operational state on Nbsf_Management (seed §3.39, §3.40): a request the state refuses is
 * answered here, before it is routed. Worker thread of the request. */
#ifndef BSF_GATEWAYS_SBI_NBSF_OPSTATE_H
#define BSF_GATEWAYS_SBI_NBSF_OPSTATE_H

#include <stdbool.h>

#include "common/operational_state.h"
#include "gateways/sbi/nbsf_internal.h"

/* Answers the request and returns true when the operational state refuses it (POST is a new
 * registration of any kind, GET/HEAD a discovery, other methods act on a binding); false:
 * the request goes on. */
bool bsf_nbsf_opstate_refused(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r);
/* Answers a refusal of `why` (BSF_OPVERDICT_SHUTDOWN or _STOPPING): the configured status and
 * cause (controlled_shutdown.*), Retry-After, and a detail naming the state or the stop. Also
 * used for a write the engine did not take because it is stopping. */
void bsf_nbsf_opstate_refuse(bsf_nbsf_request_t *rq, bsf_opverdict_t why);

#endif
