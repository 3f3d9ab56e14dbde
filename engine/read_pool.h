/* The store's side of engine/read.h: freeing the idle handles when it closes. Engine only. */
#ifndef BSF_ENGINE_READ_POOL_H
#define BSF_ENGINE_READ_POOL_H

#include "engine/read.h"
#include "engine/store.h"

/* Aborts and frees every idle handle. Called by bsf_store_close, alone on the store. */
void bsf_read_pool_free(bsf_store_t *store);

/* The handle's transaction (valid between bsf_read_begin and bsf_read_end) and store, for
 * the facade's other files (ue_read.c). */
MDB_txn *bsf_read_txn(bsf_read_t *r);
bsf_store_t *bsf_read_store(bsf_read_t *r);

/* Sorts the `n` matches of an array at `matches` (`size` bytes each, their id and record at
 * `id_off` and `record_off`, as offsetof gives them: bsf_ue_match_t, bsf_mbs_match_t) oldest
 * first: created HLC, then site, then id (bsf_discovery_recency_cmp). In place; the caller's
 * thread. */
void bsf_read_sort_by_creation(void *matches, size_t n, size_t size, size_t id_off,
                               size_t record_off);

#endif
