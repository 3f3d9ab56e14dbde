/* A document type of core behind `void *` (PcfForUeBinding, PcfMbsBinding, BsfSubscription),
 * for the code that carries any of them alike: the events' payloads (core/event.c) and the
 * document projections (projections/doc_projection.h). Each type's module defines its
 * descriptor (bsf_pcf_ue_binding_type...). Static data; the functions are pure: any thread. */
#ifndef BSF_CORE_DOC_TYPE_H
#define BSF_CORE_DOC_TYPE_H

#include <msgpack.h>
#include <stddef.h>

#include "core/problem.h"

typedef struct {
    size_t size; /* of the C value */
    /* The type's _decode, then its _check_rules: `map` into `out` (`size` bytes; strings and
     * arrays in `zone`). Returns 0, or -1 with problem set. */
    int (*decode)(const msgpack_object *map, msgpack_zone *zone, void *out,
                  bsf_problem_t *problem);
    /* The type's _encode: the canonical msgpack map. Returns 0 or -1 (packer error). */
    int (*encode)(const void *doc, msgpack_packer *pk);
} bsf_doc_type_t;

#endif
