#include "core/pcf_ue_binding_patch.h"

#include <stdio.h>
#include <string.h>

static bsf_patch_op_t *op_of(bsf_pcf_ue_binding_patch_t *p, const char *key)
{
    if (strcmp(key, "pcfForUeFqdn") == 0)
        return &p->pcf_for_ue_fqdn;
    if (strcmp(key, "pcfForUeIpEndPoints") == 0)
        return &p->pcf_for_ue_ip_end_points;
    if (strcmp(key, "pcfId") == 0)
        return &p->pcf_id;
    return NULL;
}

int bsf_pcf_ue_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_pcf_ue_binding_patch_t *out, bsf_problem_t *problem)
{
    memset(out, 0, sizeof *out);
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "the merge patch must be a JSON object");
        return -1;
    }
    bsf_member_ctx_t c = {zone, problem};
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        char key[64], ptr[72];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, "/",
                                    "member name is not modifiable");
        snprintf(ptr, sizeof ptr, "/%s", key);
        bsf_patch_op_t *op = op_of(out, key);
        if (!op)
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, ptr,
                                    "is not a member of PcfForUeBindingPatch and cannot be "
                                    "modified");
        if (kv->val.type == MSGPACK_OBJECT_NIL)
            return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                    "cannot be removed (not nullable)");
        if (bsf_pcf_ue_binding_decode_member(&c, key, &kv->val, &out->values))
            return -1;
        *op = BSF_PATCH_SET;
    }
    return 0;
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
