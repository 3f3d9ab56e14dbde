/* A JSON merge patch (RFC 7396) whose members can only be set, never removed
 * (PcfForUeBindingPatch, PcfMbsBindingPatch): its decoding loop, its emptiness and its
 * application, over a table of the type's members. Pure; any thread. */
#ifndef BSF_CORE_MERGE_PATCH_H
#define BSF_CORE_MERGE_PATCH_H

#include <msgpack.h>
#include <stddef.h>

#include "core/member_parse.h"
#include "core/pcf_binding_patch.h"

/* One member of a set-only patch type: its JSON name, the offset of its operation slot in
 * the patch, and the offset and size of its value in the document (the same in the patch's
 * `values`, which is a document). */
typedef struct {
    const char *name;
    size_t op;
    size_t field, field_size;
} bsf_merge_patch_member_t;

/* The row of member `f` (the same name in the patch type and the document type). */
#define BSF_MERGE_PATCH_MEMBER(name, patch_type, doc_type, f)                                  \
    {name, offsetof(patch_type, f), offsetof(doc_type, f), sizeof(((doc_type *)0)->f)}

/* A set-only patch type: its name (in the problem of an unknown member), its size, its
 * members, how their values decode (`decode`, into the patch's `values` member at
 * `values_offset`) and the size of the document they patch. Static data. */
typedef struct {
    const char *name;
    size_t size;
    const bsf_merge_patch_member_t *members;
    size_t n_members;
    bsf_member_decode_fn decode;
    size_t values_offset;
    size_t doc_size;
} bsf_merge_patch_type_t;

/* The descriptor of the set-only patch type `patch_t` named `name_` (its values a `doc_t` in
 * member `values`), over the static array `members_` of its members, their values decoded by
 * `decode_`: the sizes, the count and the offset derived from the types. */
#define BSF_MERGE_PATCH_TYPE(name_, patch_t, doc_t, members_, decode_)                          \
    {.name = (name_), .size = sizeof(patch_t), .members = (members_),                          \
     .n_members = sizeof(members_) / sizeof((members_)[0]), .decode = (decode_),               \
     .values_offset = offsetof(patch_t, values), .doc_size = sizeof(doc_t)}

/* Zeroes `patch` (every slot KEEP), then decodes the members of `map` into it: each one's
 * value into the patch's values (pointers into `zone`) and its slot set to BSF_PATCH_SET.
 * Returns 0, or -1 with a 400 problem in *problem: INVALID_MSG_FORMAT (not an object),
 * MODIFICATION_NOT_ALLOWED (a member that is not of the type), OPTIONAL_IE_INCORRECT (null:
 * no member can be removed), or what t->decode answers. */
int bsf_merge_patch_decode_set_only(const msgpack_object *map, msgpack_zone *zone,
                                    bsf_problem_t *problem, const bsf_merge_patch_type_t *t,
                                    void *patch);

/* True when no member of `patch` is set (an empty document). */
bool bsf_merge_patch_is_empty(const bsf_merge_patch_type_t *t, const void *patch);

/* result = base with the members `patch` sets replaced by the patch's values (shallow: shares
 * strings and arrays with base and patch). `result` and `base` are distinct documents. */
void bsf_merge_patch_apply(const bsf_merge_patch_type_t *t, const void *base, const void *patch,
                           void *result);

#endif
