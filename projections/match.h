/* A live binding found by a lookup: what readers outside the store (engine/read.h) get back,
 * without LMDB's types. */
#ifndef BSF_PROJECTIONS_MATCH_H
#define BSF_PROJECTIONS_MATCH_H

#include "core/binding_id.h"
#include "core/pcf_binding.h"
#include "projections/record.h"

/* The record points into the read snapshot's memory, `doc` and the binding into the zone the
 * lookup was given: all are valid until the snapshot ends or the zone is cleared.
 * `doc` is the stored binding (its msgpack map). `binding` is decoded from it: every member,
 * except after a discovery, which decodes only what its filters read
 * (bsf_pcf_binding_decode_matchable); bsf_read_match_complete decodes the rest. */
typedef struct {
    bsf_binding_id_t id;
    bsf_record_t record;
    msgpack_object doc;
    bsf_pcf_binding_t binding;
} bsf_match_t;

#endif
