/* The shared loop of the set-only merge patches. */
#include "core/merge_patch.h"

#include <stdio.h>

int bsf_merge_patch_decode_set_only(const msgpack_object *map, bsf_member_ctx_t *c,
                                    const char *type_name, bsf_merge_patch_op_fn op_of,
                                    void *patch, bsf_member_decode_fn decode,
                                    void *values)
{
    bsf_problem_t *problem = c->problem;
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
        bsf_patch_op_t *op = op_of(patch, key);
        if (!op)
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, ptr,
                                    "is not a member of %s and cannot be modified", type_name);
        if (kv->val.type == MSGPACK_OBJECT_NIL)
            return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                    "cannot be removed (not nullable)");
        if (decode(c, key, &kv->val, values))
            return -1;
        *op = BSF_PATCH_SET;
    }
    return 0;
}
