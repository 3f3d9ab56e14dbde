/* LMDB projections of the PCF-for-UE binding events: `ue_bindings` (id -> record, the same
 * record format as `bindings`, holding a PcfForUeBinding), the `ix_ue_supi` / `ix_ue_gpsi`
 * indexes and the "ue/total" counter (in `counters`). Tombstones share `ix_tombstones`.
 *
 * Apply follows the rules of PCF bindings, so it is idempotent and order-insensitive: a
 * deregistration always wins (the record becomes a tombstone at the latest deregistration's
 * (HLC, site)), among registrations and updates the highest (HLC, site) wins, and indexes and
 * counters derive from the live record only. Every function takes the caller's transaction
 * (writes: the engine's or bsfctl's write transaction). */
#ifndef BSF_PROJECTIONS_UE_PROJECTION_H
#define BSF_PROJECTIONS_UE_PROJECTION_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/event.h"
#include "projections/projection.h"
#include "projections/record.h"

#define BSF_UE_COUNTER_TOTAL "ue/total"

/* Applies a UeBinding{Registered,Updated,Deregistered} event. Returns 0, -ENOMEM, -EINVAL
 * (not a UE-binding event), or an LMDB code (MDB_MAP_FULL; MDB_CORRUPTED for a stored record
 * that does not parse). */
int bsf_ue_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                            msgpack_sbuffer *scratch);

/* The record of a UE binding id, live or dead: 0, MDB_NOTFOUND, MDB_CORRUPTED or another
 * LMDB code. `out` points into the transaction's pages. */
int bsf_ue_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                          bsf_record_t *out);

/* The live record of a UE binding id into *rec and its binding into `out` (strings and
 * arrays in `zone`): 0, MDB_NOTFOUND (none, or a tombstone), MDB_CORRUPTED or another LMDB
 * code. */
int bsf_ue_projection_get_live(const bsf_projection_t *p, MDB_txn *txn,
                               const bsf_binding_id_t *id, msgpack_zone *zone,
                               bsf_record_t *rec, bsf_pcf_ue_binding_t *out);

/* Decodes a live record's PcfForUeBinding into `zone`. Returns 0 or -1 (corrupt). */
int bsf_record_decode_ue_binding(const bsf_record_t *r, msgpack_zone *zone,
                                 bsf_pcf_ue_binding_t *out);

/* Calls `visit` for each live UE binding id of a SUPI (or GPSI when `gpsi`), in key order,
 * until it returns true. Returns 0 or an LMDB code. */
int bsf_ue_projection_ids(const bsf_projection_t *p, MDB_txn *txn, const char *value, bool gpsi,
                          bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx);

#endif
