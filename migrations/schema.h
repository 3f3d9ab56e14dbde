/* Store schema versions. The `meta` sub-database records the version the store was written
 * with. Versions:
 *   1  log, bindings and their indexes, counters, meta
 *   2  + ue_bindings, ix_ue_supi, ix_ue_gpsi (PCF for a UE bindings),
 *        mbs_bindings, ix_mbs_session (PCF for an MBS session bindings)
 *   3  + audit (the audit state of PCF bindings, projections/audit_projection.h); no record
 *        changes: a binding without an audit record was never audited; + subscriptions,
 *        ix_sub_supi, ix_sub_gpsi, ix_sub_expiry (subscriptions to binding events)
 *   4  records (bindings, ue_bindings, mbs_bindings) are written in record format 3, the
 *        compact header (projections/record.h); format-2 records of older versions are
 *        read as they are, so the migration only rewrites the version. A build of
 *        version 3 refuses a version-4 store (it could not read its new records).
 * A store of version 1, 2 or 3 opened read-write is migrated: the caller has created the new
 * sub-databases in the same transaction (bsf_projection_open with create), so only the
 * version is rewritten. A version-2 store opened read-only reads as one without audit
 * state. A newer version than this build's is refused. The records an older release wrote in
 * format 2 are then rewritten in format 3 by the record pass (record_pass.h: batches, progress
 * in the log, resumable), which changes no version. */
#ifndef BSF_MIGRATIONS_SCHEMA_H
#define BSF_MIGRATIONS_SCHEMA_H

#include <lmdb.h>
#include <stddef.h>

#define BSF_SCHEMA_VERSION 4

/* Checks (and on a new or older store, writes) the schema version in `meta`, in a write
 * transaction. Returns 0, or -1 with a message when the store has a version this build
 * cannot read. */
int bsf_schema_check(MDB_txn *txn, MDB_dbi meta, char *err, size_t err_cap);

#endif
