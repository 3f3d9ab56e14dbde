/* Store schema versions. The `meta` sub-database records the version the store was written
 * with; opening a store written with another version is refused (there is no migration
 * yet, nor a way to register one: the first schema change adds it here). */
#ifndef BSF_MIGRATIONS_SCHEMA_H
#define BSF_MIGRATIONS_SCHEMA_H

#include <lmdb.h>
#include <stddef.h>

#define BSF_SCHEMA_VERSION 1

/* Checks (and on a new store, writes) the schema version in `meta`. Returns 0, or -1 with a
 * message when the store has a version this build cannot read. */
int bsf_schema_check(MDB_txn *txn, MDB_dbi meta, char *err, size_t err_cap);

#endif
