/* PcfBindingPatch (TS 29.521) applied with JSON merge-patch semantics (RFC 7396):
 * an absent member is kept, `null` removes it, a value replaces it. */
#ifndef BSF_CORE_PCF_BINDING_PATCH_H
#define BSF_CORE_PCF_BINDING_PATCH_H

#include "core/pcf_binding.h"

typedef enum { BSF_PATCH_KEEP = 0, BSF_PATCH_REMOVE, BSF_PATCH_SET } bsf_patch_op_t;

typedef struct {
    bsf_patch_op_t ipv4, ip_domain, ipv6, add_ipv6, mac, add_mac;
    bsf_patch_op_t pcf_id, pcf_fqdn, pcf_ip_end_points, pcf_diam_host, pcf_diam_realm;
    /* New values for the members whose op is BSF_PATCH_SET. */
    bsf_pcf_binding_t values;
} bsf_pcf_binding_patch_t;

/* Decodes a merge-patch document. Members outside PcfBindingPatch give
 * MODIFICATION_NOT_ALLOWED (403); `null` on a member that is not nullable in the schema gives
 * OPTIONAL_IE_INCORRECT. Returns 0 or -1 with problem set. */
int bsf_pcf_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                 bsf_pcf_binding_patch_t *out, bsf_problem_t *problem);

/* True when the patch changes nothing (an empty document). */
bool bsf_pcf_binding_patch_is_empty(const bsf_pcf_binding_patch_t *patch);

/* result = base with the patch applied (shallow: result shares strings and arrays with base
 * and patch). The caller checks the result with bsf_pcf_binding_check_rules. */
void bsf_pcf_binding_patch_apply(const bsf_pcf_binding_t *base,
                                 const bsf_pcf_binding_patch_t *patch, bsf_pcf_binding_t *result);

#endif
