/* The shared loop of the set-only merge patches. */
#include "core/merge_patch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

int bsf_merge_patch_decode_set_only(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_problem_t *problem, const bsf_merge_patch_type_t *t,
                                    void *patch)
{
    memset(patch, 0, t->size);
    bsf_member_ctx_t c = {zone, problem};
    void *values = (char *)patch + t->values_offset;
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "the merge patch must be a JSON object");
        return -1;
    }
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        char key[64], ptr[72];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, "/",
                                    "member name is not modifiable");
        snprintf(ptr, sizeof ptr, "/%s", key);
        bsf_patch_op_t *op = t->op_of(patch, key);
        if (!op)
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, ptr,
                                    "is not a member of %s and cannot be modified", t->name);
        if (kv->val.type == MSGPACK_OBJECT_NIL)
            return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                    "cannot be removed (not nullable)");
        if (t->decode(&c, key, &kv->val, values))
            return -1;
        *op = BSF_PATCH_SET;
    }
    return 0;
}
