/* The PcfMbsBinding resource of TS 29.521 (API 1.5.0): the PCF handling a multicast /
 * broadcast (MBS) session, bound by its MbsSessionId, and PcfMbsBindingPatch (RFC 7396 merge
 * patch of pcfFqdn, pcfIpEndPoints, pcfId; none nullable). Decoded from msgpack maps with the
 * 3GPP member names, encoded back canonically (schema order). Strings and arrays live in the
 * caller's zone. Pure: any thread. */
#ifndef BSF_CORE_PCF_MBS_BINDING_H
#define BSF_CORE_PCF_MBS_BINDING_H

#include <msgpack.h>

#include "core/mbs_session_id.h"
#include "core/pcf_binding.h"
#include "core/pcf_binding_patch.h"
#include "core/doc_type.h"
#include "core/problem.h"

typedef struct {
    bool has_mbs_session_id; /* required */
    bsf_mbs_session_id_t mbs_session_id;
    const char *pcf_fqdn;
    bsf_ip_end_points_t pcf_ip_end_points;
    const char *pcf_id;
    const char *pcf_set_id;
    const char *bind_level;
    const char *recovery_time;
    const char *supp_feat;
} bsf_pcf_mbs_binding_t;

/* Decodes a PcfMbsBinding map (unknown members ignored). mbsSessionId errors are
 * MANDATORY_IE_INCORRECT, the others OPTIONAL_IE_INCORRECT. Returns 0 or -1 with problem. */
int bsf_pcf_mbs_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                               bsf_pcf_mbs_binding_t *out, bsf_problem_t *problem);

/* mbsSessionId is required, and pcfFqdn or pcfIpEndPoints (anyOf). Returns 0, or -1 with
 * MANDATORY_IE_MISSING. */
int bsf_pcf_mbs_binding_check_rules(const bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem);

/* Canonical msgpack map. Returns 0 or -1. */
int bsf_pcf_mbs_binding_encode(const bsf_pcf_mbs_binding_t *b, msgpack_packer *pk);

typedef struct {
    bsf_patch_op_t pcf_fqdn, pcf_ip_end_points, pcf_id; /* KEEP or SET */
    bsf_pcf_mbs_binding_t values;
} bsf_pcf_mbs_binding_patch_t;

/* Decodes a merge patch: a member outside PcfMbsBindingPatch gives MODIFICATION_NOT_ALLOWED,
 * `null` OPTIONAL_IE_INCORRECT, a value the registration's cause. Returns 0 or -1. */
int bsf_pcf_mbs_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                     bsf_pcf_mbs_binding_patch_t *out, bsf_problem_t *problem);
bool bsf_pcf_mbs_binding_patch_is_empty(const bsf_pcf_mbs_binding_patch_t *p);
/* result = base with the patch applied (shallow). The result keeps base's validity. */
void bsf_pcf_mbs_binding_patch_apply(const bsf_pcf_mbs_binding_t *base,
                                     const bsf_pcf_mbs_binding_patch_t *p,
                                     bsf_pcf_mbs_binding_t *result);

/* PcfMbsBinding as a bsf_doc_type_t (bsf_pcf_mbs_binding_t; decode checks the rules). */
extern const bsf_doc_type_t bsf_pcf_mbs_binding_type;

#endif
