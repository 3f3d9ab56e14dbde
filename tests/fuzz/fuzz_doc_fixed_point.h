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

/* Checks the fixed point of `b` (a valid binding); scratch in `zone`. */
void fz_doc_fixed_point(const fz_doc_kind_t *k, const void *b, msgpack_zone *zone);

/* One fuzz input of kind k: as a body (decode, rules, then the fixed point and check_valid
 * when valid) and, with k->base, as a patch of the base document, whose result must pass the
 * rules (nothing can be removed) and be a fixed point. */
void fz_doc_run(const fz_doc_kind_t *k, const uint8_t *data, size_t size);

#endif
