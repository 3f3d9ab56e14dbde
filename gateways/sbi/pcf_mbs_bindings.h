/* The /pcf-mbs-bindings operations of Nbsf_Management (TS 29.521 API 1.5.0, PCF for an MBS
 * session bindings): register, discovery by mbs-session-id, merge-patch update, deregister.
 * Worker thread of the request only. */
#ifndef BSF_GATEWAYS_SBI_PCF_MBS_BINDINGS_H
#define BSF_GATEWAYS_SBI_PCF_MBS_BINDINGS_H

#include "core/mbs_session_id.h"
#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_internal.h"

#define BSF_PCF_MBS_BINDINGS "pcf-mbs-bindings"

/* The collection for bsf_nbsf_doc_route (nbsf_doc_resource.h); static data. */
extern const bsf_nbsf_doc_resource_t bsf_pcf_mbs_bindings;

/* The discovery query: `mbs-session-id` (required: a JSON MbsSessionId, percent-encoded) and
 * `supp-feat` (a JSON string, or the bare hex digits). Returns 0, or -1 with a 400 problem
 * (MANDATORY_QUERY_PARAM_MISSING, MANDATORY_QUERY_PARAM_INCORRECT,
 * OPTIONAL_QUERY_PARAM_INCORRECT, INVALID_QUERY_PARAM). */
typedef struct {
    bsf_mbs_session_id_t session;
    const char *supp_feat;
} bsf_mbs_query_t;
int bsf_mbs_query_parse(const char *query, size_t len, msgpack_zone *zone, bsf_mbs_query_t *q,
                        bsf_problem_t *problem);

#endif
