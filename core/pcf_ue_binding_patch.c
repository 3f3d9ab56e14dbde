#include "core/pcf_ue_binding_patch.h"

#include <stddef.h>

#include "core/merge_patch.h"

#define MEMBER(name, f) \
    BSF_MERGE_PATCH_MEMBER(name, bsf_pcf_ue_binding_patch_t, bsf_pcf_ue_binding_t, f)

static const bsf_merge_patch_member_t members[] = {
    MEMBER("pcfForUeFqdn", pcf_for_ue_fqdn),
    MEMBER("pcfForUeIpEndPoints", pcf_for_ue_ip_end_points),
    MEMBER("pcfId", pcf_id),
};

static const bsf_merge_patch_type_t patch_type =
    BSF_MERGE_PATCH_TYPE("PcfForUeBindingPatch", bsf_pcf_ue_binding_patch_t, bsf_pcf_ue_binding_t,
                         members, bsf_pcf_ue_binding_decode_member);

int bsf_pcf_ue_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_pcf_ue_binding_patch_t *out, bsf_problem_t *problem)
{
    return bsf_merge_patch_decode_set_only(map, zone, problem, &patch_type, out);
}

bool bsf_pcf_ue_binding_patch_is_empty(const bsf_pcf_ue_binding_patch_t *p)
{
    return bsf_merge_patch_is_empty(&patch_type, p);
}

void bsf_pcf_ue_binding_patch_apply(const bsf_pcf_ue_binding_t *base,
                                    const bsf_pcf_ue_binding_patch_t *p,
                                    bsf_pcf_ue_binding_t *r)
{
    bsf_merge_patch_apply(&patch_type, base, p, r);
}
