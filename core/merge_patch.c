/* The shared loop, emptiness and application of the set-only merge patches. */
#include "core/merge_patch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static bsf_patch_op_t *op_of(const bsf_merge_patch_type_t *t, void *patch, const char *key)
{
    for (size_t i = 0; i < t->n_members; i++)
        if (strcmp(t->members[i].name, key) == 0)
            return (bsf_patch_op_t *)((char *)patch + t->members[i].op);
    return NULL;
}

static bsf_patch_op_t op_at(const void *patch, const bsf_merge_patch_member_t *m)
{
    return *(const bsf_patch_op_t *)((const char *)patch + m->op);
}

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
        bsf_patch_op_t *op = op_of(t, patch, key);
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

bool bsf_merge_patch_is_empty(const bsf_merge_patch_type_t *t, const void *patch)
{
    for (size_t i = 0; i < t->n_members; i++)
        if (op_at(patch, &t->members[i]) != BSF_PATCH_KEEP)
            return false;
    return true;
}

void bsf_merge_patch_apply(const bsf_merge_patch_type_t *t, const void *base, const void *patch,
                           void *result)
{
    const char *values = (const char *)patch + t->values_offset;
    memcpy(result, base, t->doc_size);
    for (size_t i = 0; i < t->n_members; i++) {
        const bsf_merge_patch_member_t *m = &t->members[i];
        if (op_at(patch, m) == BSF_PATCH_SET)
            memcpy((char *)result + m->field, values + m->field, m->field_size);
    }
}
