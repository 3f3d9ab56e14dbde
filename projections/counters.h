/* Active-session counters kept in the `counters` sub-database. A counter that drops to zero
 * is deleted, so the sub-database depends only on the live bindings, never on history. */
#ifndef BSF_PROJECTIONS_COUNTERS_H
#define BSF_PROJECTIONS_COUNTERS_H

#include <lmdb.h>
#include <stdint.h>

#include "core/pcf_binding.h"

#define BSF_COUNTER_NAME_MAX 200

/* Adds `delta` (+1 or -1) to every counter the binding contributes to: total, per DNN, per
 * S-NSSAI, per PCF, and one per-prefix-length counter for each IPv6 / IPv4-route index entry
 * (lookups use those to know which prefix lengths exist). Returns an LMDB error code. */
int bsf_counters_account(MDB_txn *txn, MDB_dbi dbi, const bsf_pcf_binding_t *b, int delta);

/* Adds `delta` to one counter (deleted at zero, never below), in a write transaction.
 * Returns 0 or an LMDB code (MDB_MAP_FULL, MDB_BAD_VALSIZE for a name LMDB cannot key). */
int bsf_counter_add(MDB_txn *txn, MDB_dbi dbi, const char *name, int64_t delta);
/* Deltas in memory for one write transaction (calling thread only): from here, additions to
 * `dbi`'s counters in `txn` are summed per counter and written once by bsf_counters_flush,
 * which must run before the commit (a re-registration then writes nothing: its -1 and +1
 * cancel). Reads in `txn` (bsf_counter_get, bsf_counters_prefix_lengths) see the deltas. A
 * counter is clamped at zero once, at the flush, not at every step. At most 64 counters wait;
 * a 65th writes them first. bsf_counters_discard forgets them (the transaction is aborted).
 * flush returns 0 or an LMDB code; after it (or discard) additions go straight to the store. */
void bsf_counters_defer(MDB_txn *txn, MDB_dbi dbi);
int bsf_counters_flush(MDB_txn *txn);
void bsf_counters_discard(void);

/* A counter's value; 0 when absent or unreadable. */
uint64_t bsf_counter_get(MDB_txn *txn, MDB_dbi dbi, const char *name);

/* Prefix lengths present in an index, as a bitmap, from "len6/" or "len4r/" counters.
 * Returns 0 or an LMDB code. */
int bsf_counters_prefix_lengths(MDB_txn *txn, MDB_dbi dbi, const char *family, unsigned max_len,
                                uint8_t bitmap[17]);

#endif
