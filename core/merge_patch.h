/* The decoding loop of a JSON merge patch (RFC 7396) whose members can only be set, never
 * removed (PcfForUeBindingPatch, PcfMbsBindingPatch). Pure; any thread. */
#ifndef BSF_CORE_MERGE_PATCH_H
#define BSF_CORE_MERGE_PATCH_H

#include <msgpack.h>

#include "core/member_parse.h"
#include "core/pcf_binding_patch.h"

/* The operation slot of member `key` in `patch`, or NULL when the type has no such member. */
typedef bsf_patch_op_t *(*bsf_merge_patch_op_fn)(void *patch, const char *key);

/* Decodes the members of `map` into `patch` (whose slots `op_of` finds; every slot KEEP on
 * entry) and their values into `values` (pointers into c->zone), each member's slot set to
 * BSF_PATCH_SET. `type_name` names the patch type in the problem of an unknown member.
 * Returns 0, or -1 with a 400 problem in c->problem: INVALID_MSG_FORMAT (not an object),
 * MODIFICATION_NOT_ALLOWED (a member that is not of the type), OPTIONAL_IE_INCORRECT (null:
 * no member can be removed), or what `decode` answers. */
int bsf_merge_patch_decode_set_only(const msgpack_object *map, bsf_member_ctx_t *c,
                                    const char *type_name, bsf_merge_patch_op_fn op_of,
                                    void *patch, bsf_member_decode_fn decode,
                                    void *values);

#endif
