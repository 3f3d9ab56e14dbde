/* LMDB projections of the MBS-session binding events: `mbs_bindings` (id -> record holding
 * a PcfMbsBinding), `ix_mbs_session` (one entry per identifier of the session: "tmgi:..." and
 * "ssm:...", core/mbs_session_id.h) and the "mbs/total" counter. The rules of
 * projections/doc_projection.h (idempotent, order-insensitive). Caller's transaction. */
#ifndef BSF_PROJECTIONS_MBS_PROJECTION_H
#define BSF_PROJECTIONS_MBS_PROJECTION_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/event.h"
#include "projections/projection.h"
#include "projections/record.h"

#define BSF_MBS_COUNTER_TOTAL "mbs/total"

/* Applies an MbsBinding{Registered,Updated,Deregistered} event. Returns 0, -ENOMEM, -EINVAL
 * (not an MBS event), or an LMDB code (MDB_MAP_FULL, MDB_CORRUPTED). */
int bsf_mbs_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                             msgpack_sbuffer *scratch);

/* The record of an MBS binding id, live or dead: 0, MDB_NOTFOUND, MDB_CORRUPTED or another
 * LMDB code. */
int bsf_mbs_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out);

/* The live record of a MBS binding id into *rec and its binding into `out` (strings and
 * arrays in `zone`): 0, MDB_NOTFOUND (none, or a tombstone), MDB_CORRUPTED or another LMDB
 * code. */
int bsf_mbs_projection_get_live(const bsf_projection_t *p, MDB_txn *txn,
                                const bsf_binding_id_t *id, msgpack_zone *zone,
                                bsf_record_t *rec, bsf_pcf_mbs_binding_t *out);

/* Calls `visit` for each MBS binding id indexed under the session's first identifier (TMGI,
 * else SSM), until it returns true; the caller checks bsf_mbs_session_id_matches on each.
 * Returns 0 or an LMDB code. */
int bsf_mbs_projection_ids(const bsf_projection_t *p, MDB_txn *txn,
                           const bsf_mbs_session_id_t *session,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx);

#endif
