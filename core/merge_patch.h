/* The decoding loop of a JSON merge patch (RFC 7396) whose members can only be set, never
 * removed (PcfForUeBindingPatch, PcfMbsBindingPatch). Pure; any thread. */
#ifndef BSF_CORE_MERGE_PATCH_H
#define BSF_CORE_MERGE_PATCH_H

#include <msgpack.h>

#include "core/member_parse.h"
#include "core/pcf_binding_patch.h"

/* The operation slot of member `key` in `patch`, or NULL when the type has no such member. */
typedef bsf_patch_op_t *(*bsf_merge_patch_op_fn)(void *patch, const char *key);

/* A set-only patch type: its name (in the problem of an unknown member), its size, where its
 * operation slots are (`op_of`) and how its members' values decode (`decode`, into the
 * patch's `values` member at `values_offset`). Static data. */
typedef struct {
    const char *name;
    size_t size;
    bsf_merge_patch_op_fn op_of;
    bsf_member_decode_fn decode;
    size_t values_offset;
} bsf_merge_patch_type_t;

/* Zeroes `patch` (every slot KEEP), then decodes the members of `map` into it: each one's
 * value into the patch's values (pointers into `zone`) and its slot set to BSF_PATCH_SET.
 * Returns 0, or -1 with a 400 problem in *problem: INVALID_MSG_FORMAT (not an object),
 * MODIFICATION_NOT_ALLOWED (a member that is not of the type), OPTIONAL_IE_INCORRECT (null:
 * no member can be removed), or what t->decode answers. */
int bsf_merge_patch_decode_set_only(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_problem_t *problem, const bsf_merge_patch_type_t *t,
                                    void *patch);

#endif
