/* What the document fuzz targets (fuzz_ue_binding_json, fuzz_mbs_binding_json,
 * fuzz_subscription_json) share: the fixed-point check (a valid document's canonical encoding
 * decodes, passes the rules and encodes to the same bytes) and the run of one input as a body
 * and as a merge patch of a fixed document. Aborts (the fuzzer's finding) when a check fails;
 * single-threaded, as libFuzzer calls its target. */
#ifndef BSF_TESTS_FUZZ_DOC_FIXED_POINT_H
#define BSF_TESTS_FUZZ_DOC_FIXED_POINT_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "core/problem.h"

/* One document kind; the `void *` documents are of its type, `size` bytes, and its patches
 * `patch_size` bytes. Static data. */
typedef struct {
    size_t size;
    int (*decode)(const msgpack_object *map, msgpack_zone *zone, void *out, bsf_problem_t *p);
    int (*check_rules)(const void *b, bsf_problem_t *p);
    int (*encode)(const void *b, msgpack_packer *pk);
    /* a further invariant of the decoded `again` against `b` (aborts), or NULL */
    void (*check_again)(const void *again, const void *b);
    /* a further check of a valid body after its fixed point (aborts), or NULL */
    void (*check_valid)(const void *b);
    /* the merge patch: `base` (JSON of a valid document, the patches' target), its decoder
     * and apply; base NULL for a kind that is not patched */
    const char *base;
    size_t patch_size;
    int (*patch_decode)(const msgpack_object *map, msgpack_zone *zone, void *out,
                        bsf_problem_t *p);
    void (*patch_apply)(const void *base, const void *patch, void *result);
} fz_doc_kind_t;

/* The kind's functions for the document type p##_t of the core module p (bsf_<doc>_decode,
 * _check_rules, _encode): FZ_DOC_ADAPTERS(p) defines the adapters to the `void *` signatures
 * above (static, once per target), FZ_DOC_FIELDS(p) initialises the kind with them. The
 * adapters stay functions: calling the typed functions through a cast pointer is undefined. */
#define FZ_DOC_DECODE_ADAPTER(name, fn)                                                            \
    static int name(const msgpack_object *map, msgpack_zone *zone, void *out,                      \
                    bsf_problem_t *problem)                                                        \
    {                                                                                              \
        return fn(map, zone, out, problem);                                                        \
    }
#define FZ_DOC_ADAPTERS(p)                                                                         \
    FZ_DOC_DECODE_ADAPTER(fz_decode, p##_decode)                                                   \
    static int fz_check_rules(const void *b, bsf_problem_t *problem)                               \
    {                                                                                              \
        return p##_check_rules(b, problem);                                                        \
    }                                                                                              \
    static int fz_encode(const void *b, msgpack_packer *pk)                                        \
    {                                                                                              \
        return p##_encode(b, pk);                                                                  \
    }
#define FZ_DOC_FIELDS(p)                                                                           \
    .size = sizeof(p##_t), .decode = fz_decode, .check_rules = fz_check_rules, .encode = fz_encode

/* The same for the merge patch p##_patch_t (p##_patch_decode, p##_patch_apply) of the JSON
 * document base_json, the patches' target. */
#define FZ_DOC_PATCH_ADAPTERS(p)                                                                   \
    FZ_DOC_DECODE_ADAPTER(fz_patch_decode, p##_patch_decode)                                       \
    static void fz_patch_apply(const void *base, const void *patch, void *result)                  \
    {                                                                                              \
        p##_patch_apply(base, patch, result);                                                      \
    }
#define FZ_DOC_PATCH_FIELDS(p, base_json)                                                          \
    .base = base_json, .patch_size = sizeof(p##_patch_t), .patch_decode = fz_patch_decode,         \
    .patch_apply = fz_patch_apply

/* Checks the fixed point of `b` (a valid binding); scratch in `zone`. */
void fz_doc_fixed_point(const fz_doc_kind_t *k, const void *b, msgpack_zone *zone);

/* One fuzz input of kind k: as a body (decode, rules, then the fixed point and check_valid
 * when valid) and, with k->base, as a patch of the base document, whose result must pass the
 * rules (nothing can be removed) and be a fixed point. */
void fz_doc_run(const fz_doc_kind_t *k, const uint8_t *data, size_t size);

#endif
