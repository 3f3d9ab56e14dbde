/* The engine's in-memory view of the subscriptions, kept exact with the store: the set of
 * subscribed SUPIs / GPSIs (engine/sub_keyset.h, rebuilt from the store's indexes at start)
 * and the cache of this site's decoded subscriptions per UE value (engine/sub_cache.h).
 *
 * Every subscription event written in the engine's transaction, its own or another site's
 * (replicated), goes through bsf_sub_index_before / _after around the write: the values the
 * subscription had before and has after (its live record, read in the transaction, so the
 * projection's order-free rules decide) get their counts moved and their cache entries
 * dropped. bsf_sub_index_settle ends the transaction: on an abort the set's changes are
 * undone and, when a subscription event was written, the whole cache is cleared (an entry
 * filled after it might hold what the aborted transaction wrote). Engine thread only. */
#ifndef BSF_ENGINE_SUB_INDEX_H
#define BSF_ENGINE_SUB_INDEX_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/event.h"
#include "engine/store.h"
#include "engine/sub_cache.h"
#include "engine/sub_keyset.h"
#include "projections/doc_projection.h"

typedef struct {
    bsf_sub_keyset_t keys;
    bsf_sub_cache_t cache;
    bool txn_wrote_sub; /* a subscription event was written in the open transaction */
    uint16_t site;      /* whose subscriptions are cached (the creating site notifies) */
} bsf_sub_index_t;

/* The indexed values of one subscription (SUPI, and GPSI when present). */
typedef struct {
    size_t n;
    bool gpsi[2];
    char value[2][BSF_DOC_KEY_MAX];
} bsf_sub_values_t;

/* Empty, with a cache of at most `cache_bytes` of the subscriptions of `site`; then
 * bsf_sub_index_rebuild. */
void bsf_sub_index_init(bsf_sub_index_t *x, size_t cache_bytes, uint16_t site);

/* Counts every SUPI and GPSI of the store's subscription indexes (no record decoded).
 * Returns 0, -ENOMEM or an LMDB code (the set is then empty). */
int bsf_sub_index_rebuild(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn);

/* Fills the cache with the subscriptions of the store's subscribed SUPIs, in key order
 * (GPSIs are filled when first used), until the cache is full or about `budget_ns` passed;
 * *n_values: how many were filled. Returns 0 or an error as bsf_sub_index_entry (the cache
 * is then cleared). */
int bsf_sub_index_warm(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, msgpack_zone *zone,
                       uint64_t budget_ns, size_t *n_values);

/* The cache entry of one UE value (hash `h`): cached, or this site's live subscriptions of
 * the value read in `txn` (at most 64; `zone` is scratch) and cached. Expiry is the
 * caller's to check. The entry is valid until the next call that fills the cache. Returns 0,
 * -ENOMEM (nothing cached) or an LMDB code (MDB_CORRUPTED for a record that does not
 * parse). */
int bsf_sub_index_entry(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, uint64_t h,
                        const char *value, bool gpsi, msgpack_zone *zone,
                        const bsf_sub_cache_entry_t **out);

/* The hash of a UE value, and whether some live subscription may have it. */
uint64_t bsf_sub_index_hash(const char *value, bool gpsi);
bool bsf_sub_index_may_have(const bsf_sub_index_t *x, uint64_t h);

/* Before a subscription event is written: the values of its subscription now (`zone` is
 * scratch). Returns 0, or an LMDB code / MDB_CORRUPTED / -ENOMEM. */
int bsf_sub_index_before(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn,
                         const bsf_event_t *ev, msgpack_zone *zone, bsf_sub_values_t *old);

/* After it was written: moves the counts from `old` to the values it has now, drops their
 * cache entries and fills the new values' ones again (the next binding event of the UE then
 * reads nothing). Returns 0, or an error as above (the transaction must then abort). */
int bsf_sub_index_after(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                        msgpack_zone *zone, const bsf_sub_values_t *old);

/* The engine's write transaction committed, or not. */
void bsf_sub_index_settle(bsf_sub_index_t *x, bool committed);

void bsf_sub_index_destroy(bsf_sub_index_t *x);

#endif
