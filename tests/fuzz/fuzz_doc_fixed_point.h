/* The fixed-point check the binding-document fuzz targets (fuzz_ue_binding_json,
 * fuzz_mbs_binding_json) share: a valid binding's canonical encoding decodes, passes the
 * rules and encodes to the same bytes. Aborts (the fuzzer's finding) when it does not. */
#ifndef BSF_TESTS_FUZZ_DOC_FIXED_POINT_H
#define BSF_TESTS_FUZZ_DOC_FIXED_POINT_H

#include <stddef.h>

#include <msgpack.h>

#include "core/problem.h"

/* One document kind; the `void *` bindings are of its type, `size` bytes. */
typedef struct {
    size_t size;
    int (*decode)(const msgpack_object *map, msgpack_zone *zone, void *out, bsf_problem_t *p);
    int (*check_rules)(const void *b, bsf_problem_t *p);
    int (*encode)(const void *b, msgpack_packer *pk);
    /* a further invariant of the decoded `again` against `b` (aborts), or NULL */
    void (*check_again)(const void *again, const void *b);
} fz_doc_kind_t;

/* Checks the fixed point of `b` (a valid binding); scratch in `zone`. */
void fz_doc_fixed_point(const fz_doc_kind_t *k, const void *b, msgpack_zone *zone);

#endif
