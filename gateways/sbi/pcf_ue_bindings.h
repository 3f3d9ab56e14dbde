/* The /pcf-ue-bindings operations of Nbsf_Management (TS 29.521 API 1.5.0, PCF for a UE
 * bindings): register, discovery by SUPI / GPSI, merge-patch update, deregister. Worker
 * thread of the request only; each answers through nbsf_exchange.h, at once or when the
 * engine is done. */
#ifndef BSF_GATEWAYS_SBI_PCF_UE_BINDINGS_H
#define BSF_GATEWAYS_SBI_PCF_UE_BINDINGS_H

#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_internal.h"

#define BSF_PCF_UE_BINDINGS "pcf-ue-bindings"

/* The collection for bsf_nbsf_doc_route (nbsf_doc_resource.h); static data. */
extern const bsf_nbsf_doc_resource_t bsf_pcf_ue_bindings;

/* Parses the discovery query (supi, gpsi, supp-feat; at least one of supi and gpsi) into
 * pointers in `zone`. Returns 0, or -1 with a 400 problem (INVALID_QUERY_PARAM,
 * MANDATORY_QUERY_PARAM_MISSING, MANDATORY_QUERY_PARAM_INCORRECT or
 * OPTIONAL_QUERY_PARAM_INCORRECT). */
typedef struct {
    const char *supi, *gpsi, *supp_feat;
} bsf_ue_query_t;
int bsf_ue_query_parse(const char *query, size_t len, msgpack_zone *zone, bsf_ue_query_t *q,
                       bsf_problem_t *problem);

#endif
