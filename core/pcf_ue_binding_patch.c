#include "core/pcf_ue_binding_patch.h"

#include <stddef.h>
#include <string.h>

#include "core/merge_patch.h"

static bsf_patch_op_t *op_of(void *patch, const char *key)
{
    bsf_pcf_ue_binding_patch_t *p = patch;
    if (strcmp(key, "pcfForUeFqdn") == 0)
        return &p->pcf_for_ue_fqdn;
    if (strcmp(key, "pcfForUeIpEndPoints") == 0)
        return &p->pcf_for_ue_ip_end_points;
    if (strcmp(key, "pcfId") == 0)
        return &p->pcf_id;
    return NULL;
}

static const bsf_merge_patch_type_t patch_type = {
    "PcfForUeBindingPatch", sizeof(bsf_pcf_ue_binding_patch_t), op_of,
    bsf_pcf_ue_binding_decode_member, offsetof(bsf_pcf_ue_binding_patch_t, values)};

int bsf_pcf_ue_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_pcf_ue_binding_patch_t *out, bsf_problem_t *problem)
{
    return bsf_merge_patch_decode_set_only(map, zone, problem, &patch_type, out);
}

bool bsf_pcf_ue_binding_patch_is_empty(const bsf_pcf_ue_binding_patch_t *p)
{
    return !p->pcf_for_ue_fqdn && !p->pcf_for_ue_ip_end_points && !p->pcf_id;
}

void bsf_pcf_ue_binding_patch_apply(const bsf_pcf_ue_binding_t *base,
                                    const bsf_pcf_ue_binding_patch_t *p,
                                    bsf_pcf_ue_binding_t *r)
{
    *r = *base;
    if (p->pcf_for_ue_fqdn == BSF_PATCH_SET)
        r->pcf_for_ue_fqdn = p->values.pcf_for_ue_fqdn;
    if (p->pcf_for_ue_ip_end_points == BSF_PATCH_SET)
        r->pcf_for_ue_ip_end_points = p->values.pcf_for_ue_ip_end_points;
    if (p->pcf_id == BSF_PATCH_SET)
        r->pcf_id = p->values.pcf_id;
}
