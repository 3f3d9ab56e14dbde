/* Warm-up of the store's memory map after start-up.
 *
 * Reads through LMDB pages fault one by one on first touch: right after a restart with
 * millions of bindings, discovery pays a page fault on most lookups. A background thread
 * populates the page tables of the whole map (MADV_POPULATE_READ, Linux 5.14+), in chunks,
 * while bsfd already serves; it skips the work when the file does not fit comfortably in
 * memory. */
#ifndef BSF_ENGINE_WARMUP_H
#define BSF_ENGINE_WARMUP_H

#include "engine/store.h"

typedef struct bsf_warmup bsf_warmup_t;

/* Starts the warm-up thread; returns NULL when there is nothing to do or it cannot start. */
bsf_warmup_t *bsf_warmup_start(bsf_store_t *store);
/* Stops early if still running, and joins. */
void bsf_warmup_stop(bsf_warmup_t *w);

#endif
