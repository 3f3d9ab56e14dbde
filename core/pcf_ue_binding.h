/* The PcfForUeBinding resource of TS 29.521 (API 1.5.0): the PCF serving a UE (AM and UE
 * policy), bound by SUPI and optionally GPSI, as a C value.
 *
 * Decoded from its msgpack map (the 3GPP JSON member names) and encoded back to a canonical
 * map (schema order), so equal bindings have equal bytes. Strings and arrays live in the
 * caller's msgpack_zone: freeing the zone frees the binding. Pure: any thread. */
#ifndef BSF_CORE_PCF_UE_BINDING_H
#define BSF_CORE_PCF_UE_BINDING_H

#include <msgpack.h>
#include <stdbool.h>

#include "core/member_parse.h"
#include "core/pcf_binding.h"
#include "core/doc_type.h"
#include "core/problem.h"

typedef struct {
    const char *supi;          /* required */
    const char *gpsi;
    const char *pcf_for_ue_fqdn;
    bsf_ip_end_points_t pcf_for_ue_ip_end_points;
    const char *pcf_id;
    const char *recovery_time;
    const char *pcf_set_id;
    const char *bind_level;
    const char *supp_feat;
} bsf_pcf_ue_binding_t;

/* Decodes one PcfForUeBinding member by name into `out` (a bsf_pcf_ue_binding_t) with the
 * cause a registration uses for it (supi: MANDATORY_IE_INCORRECT, the others
 * OPTIONAL_IE_INCORRECT). Unknown names are ignored (returns 0). A bsf_member_decode_fn.
 * Returns 0, or -1 with c->problem set. */
int bsf_pcf_ue_binding_decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                                     void *out);

/* Decodes a PcfForUeBinding map, checking each member's type and format (unknown members
 * ignored). Returns 0, or -1 with `problem` set. */
int bsf_pcf_ue_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                              bsf_pcf_ue_binding_t *out, bsf_problem_t *problem);

/* The schema's rules for a complete binding: supi is required, and pcfForUeFqdn or
 * pcfForUeIpEndPoints (anyOf). Returns 0, or -1 with problem (MANDATORY_IE_MISSING). */
int bsf_pcf_ue_binding_check_rules(const bsf_pcf_ue_binding_t *b, bsf_problem_t *problem);

/* Writes the canonical msgpack map. Returns 0 or -1 (packer error). */
int bsf_pcf_ue_binding_encode(const bsf_pcf_ue_binding_t *b, msgpack_packer *pk);

/* True when both name the same PCF: every PCF identity present in both (pcfId,
 * pcfForUeFqdn) is equal, ignoring case, and at least one is present in both. */
bool bsf_pcf_ue_binding_same_pcf(const bsf_pcf_ue_binding_t *a, const bsf_pcf_ue_binding_t *b);

/* PcfForUeBinding as a bsf_doc_type_t (bsf_pcf_ue_binding_t; decode checks the rules). */
extern const bsf_doc_type_t bsf_pcf_ue_binding_type;

#endif
