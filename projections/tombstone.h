/* The tombstone index (`ix_tombstones`: hlc[8] | site[2] | id -> "", oldest first, which the
 * collector walks), shared by every record kind (PCF, UE and MBS bindings, subscriptions):
 * one entry per dead record, at its latest deregistration. Inside the caller's LMDB write
 * transaction, on its thread. */
#ifndef BSF_PROJECTIONS_TOMBSTONE_H
#define BSF_PROJECTIONS_TOMBSTONE_H

#include <lmdb.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "projections/record.h"

/* Records that `id` is dead since the deregistration at (`hlc`, `site`): puts its entry in
 * `tombstones`, after removing the entry of the earlier deregistration `dead` (the record as
 * it was; NULL when it was live or absent). Returns 0 or an LMDB error of mdb_del / mdb_put
 * (MDB_MAP_FULL, MDB_TXN_FULL, EACCES, ...); a missing earlier entry is not an error. */
int bsf_tombstone_put(MDB_txn *txn, MDB_dbi tombstones, const bsf_record_t *dead, uint64_t hlc,
                      uint16_t site, const bsf_binding_id_t *id);

/* The deregistration at (`hlc`, `site`) of `id`: its tombstone record put in `records` (the
 * kind's sub-database; the value built in `scratch`, the caller's) and its entry in
 * `tombstones` as bsf_tombstone_put puts it (`dead` the same). Returns 0 or the LMDB error of
 * either write. */
int bsf_tombstone_bury(MDB_txn *txn, MDB_dbi tombstones, MDB_dbi records,
                       const bsf_record_t *dead, uint64_t hlc, uint16_t site,
                       const bsf_binding_id_t *id, msgpack_sbuffer *scratch);

/* Writes `r` (bsf_record_write into `scratch`) as the value of `id` in `records` (the record
 * sub-database of any kind, the live records as well as the dead). Returns what mdb_put
 * returns; `scratch` stays the caller's. */
int bsf_tombstone_put_record(MDB_txn *txn, MDB_dbi records, const bsf_binding_id_t *id,
                             const bsf_record_t *r, msgpack_sbuffer *scratch);

#endif
