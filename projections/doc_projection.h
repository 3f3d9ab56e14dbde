/* The projection of a document kind kept beside the PDU-session bindings (PCF for a UE, PCF
 * for an MBS session): id -> record in the kind's own sub-database (the record format of
 * projections/record.h, no cookie, no timestamps), text indexes (value | 0 | id -> ""), and
 * one active counter in `counters`. Tombstones go to the shared `ix_tombstones`.
 *
 * The rules of PDU-session bindings, so apply is idempotent and order-insensitive: a
 * deregistration always wins (the tombstone keeps the latest deregistration's (HLC, site)),
 * among registrations and updates the highest (HLC, site) wins, indexes and the counter are
 * derived from the live record only. Caller's transaction; engine or bsfctl writer. */
#ifndef BSF_PROJECTIONS_DOC_PROJECTION_H
#define BSF_PROJECTIONS_DOC_PROJECTION_H

#include <lmdb.h>
#include <msgpack.h>
#include <stdbool.h>

#include "core/binding_id.h"
#include "core/doc_type.h"
#include "projections/projection.h"
#include "projections/record.h"

#define BSF_DOC_MAX_INDEXES 3
#define BSF_DOC_MAX_KEYS 2   /* values per index */
#define BSF_DOC_KEY_MAX 160  /* longest index value + NUL (longer ones are not indexed) */

typedef struct {
    MDB_dbi records;
    MDB_dbi index[BSF_DOC_MAX_INDEXES];
    size_t n_index;
    const char *counter;
    /* The document's values for index `i`, NUL-terminated, into out; returns how many. */
    size_t (*keys)(const void *doc, size_t i, char out[BSF_DOC_MAX_KEYS][BSF_DOC_KEY_MAX]);
    /* The document's type: its canonical msgpack, and its decoding (rules checked). */
    const bsf_doc_type_t *type;
} bsf_doc_kind_t;

/* Applies a registration or update (`doc` not NULL) or a deregistration (`doc` NULL) of
 * `ev->binding_id` at (ev->hlc, ev->site). Returns 0, -ENOMEM, or an LMDB code (MDB_MAP_FULL;
 * MDB_CORRUPTED for a stored record that does not parse). */
int bsf_doc_projection_apply(const bsf_doc_kind_t *k, const bsf_projection_t *p, MDB_txn *txn,
                             const bsf_event_t *ev, const void *doc, msgpack_sbuffer *scratch);

/* The record of `id`, live or dead: 0, MDB_NOTFOUND, MDB_CORRUPTED or another LMDB code. */
int bsf_doc_projection_get(const bsf_doc_kind_t *k, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out);

/* The live record of `id` into *rec and its document into `out` (k->type->size bytes;
 * strings and arrays in `zone`): 0, MDB_NOTFOUND (no record, or a tombstone), MDB_CORRUPTED
 * (a record or document that does not parse) or another LMDB code. */
int bsf_doc_projection_get_live(const bsf_doc_kind_t *k, MDB_txn *txn,
                                const bsf_binding_id_t *id, msgpack_zone *zone,
                                bsf_record_t *rec, void *out);

/* Decodes a live record's document of type `t` into `out` (t->size bytes; strings and
 * arrays in `zone`), its rules checked. Returns 0 or -1 (corrupt). */
int bsf_doc_record_decode(const bsf_doc_type_t *t, const bsf_record_t *r, msgpack_zone *zone,
                          void *out);

/* Calls `visit` for each id indexed under `value` in index `i`, in key order, until it
 * returns true. Returns 0 or an LMDB code. */
int bsf_doc_projection_ids(const bsf_doc_kind_t *k, MDB_txn *txn, size_t i, const char *value,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx);

#endif
