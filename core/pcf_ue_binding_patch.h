/* PcfForUeBindingPatch (TS 29.521) applied with JSON merge-patch semantics (RFC 7396): an
 * absent member is kept, a value replaces it. The schema allows pcfForUeFqdn,
 * pcfForUeIpEndPoints and pcfId, none of them nullable. Pure: any thread. */
#ifndef BSF_CORE_PCF_UE_BINDING_PATCH_H
#define BSF_CORE_PCF_UE_BINDING_PATCH_H

#include "core/pcf_binding_patch.h"
#include "core/pcf_ue_binding.h"

typedef struct {
    bsf_patch_op_t pcf_for_ue_fqdn, pcf_for_ue_ip_end_points, pcf_id; /* KEEP or SET */
    bsf_pcf_ue_binding_t values; /* the new values of the members set */
} bsf_pcf_ue_binding_patch_t;

/* Decodes a merge-patch document (values from `zone`). A member outside
 * PcfForUeBindingPatch gives MODIFICATION_NOT_ALLOWED (403); `null` gives
 * OPTIONAL_IE_INCORRECT (no member is nullable); a value is checked exactly as in a
 * registration. Returns 0, or -1 with problem set. */
int bsf_pcf_ue_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_pcf_ue_binding_patch_t *out, bsf_problem_t *problem);

/* True when the patch changes nothing (an empty document). */
bool bsf_pcf_ue_binding_patch_is_empty(const bsf_pcf_ue_binding_patch_t *patch);

/* result = base with the patch applied (shallow: shares strings and arrays with base and
 * patch). The result satisfies bsf_pcf_ue_binding_check_rules whenever base did (nothing
 * can be removed). */
void bsf_pcf_ue_binding_patch_apply(const bsf_pcf_ue_binding_t *base,
                                    const bsf_pcf_ue_binding_patch_t *patch,
                                    bsf_pcf_ue_binding_t *result);

#endif
