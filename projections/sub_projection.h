/* LMDB projection of the subscription events (SubscriptionCreated / Replaced / Removed):
 * `subscriptions` (id -> record, the record format of projections/record.h holding a
 * BsfSubscription), the `ix_sub_supi` / `ix_sub_gpsi` indexes (who to notify for a UE's
 * binding), `ix_sub_expiry` (16 hex digits of the expiry's Unix ms | 0 | id, oldest first:
 * what has expired) and the "sub/total" counter. Tombstones share `ix_tombstones`.
 *
 * The rules of bindings (projections/doc_projection.h), so apply is idempotent and
 * order-insensitive: a removal always wins, among creations and replacements the highest
 * (HLC, site) wins. Every function takes the caller's transaction (writes: the engine's or
 * bsfctl's write transaction). */
#ifndef BSF_PROJECTIONS_SUB_PROJECTION_H
#define BSF_PROJECTIONS_SUB_PROJECTION_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/event.h"
#include "projections/projection.h"
#include "projections/record.h"

#define BSF_SUB_COUNTER_TOTAL "sub/total"

/* Applies a Subscription{Created,Replaced,Removed} event. Returns 0, -ENOMEM, -EINVAL (not
 * a subscription event), or an LMDB code (MDB_MAP_FULL; MDB_CORRUPTED for a stored record
 * that does not parse). */
int bsf_sub_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                             msgpack_sbuffer *scratch);

/* The record of a subscription id, live or dead: 0, MDB_NOTFOUND, MDB_CORRUPTED or another
 * LMDB code. `out` points into the transaction's pages. */
int bsf_sub_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out);

/* Decodes a live record's BsfSubscription into `zone`. Returns 0 or -1 (corrupt). */
int bsf_record_decode_subscription(const bsf_record_t *r, msgpack_zone *zone,
                                   bsf_subscription_t *out);

/* Calls `visit` for each live subscription id of a SUPI (or GPSI when `gpsi`), in key order,
 * until it returns true. Returns 0 or an LMDB code. */
int bsf_sub_projection_ids(const bsf_projection_t *p, MDB_txn *txn, const char *value, bool gpsi,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx);

/* Calls `visit` for each live subscription whose expiry is before `now_ms`, oldest first,
 * until it returns true. Returns 0 or an LMDB code. */
int bsf_sub_projection_expired(const bsf_projection_t *p, MDB_txn *txn, int64_t now_ms,
                               bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx);

#endif
