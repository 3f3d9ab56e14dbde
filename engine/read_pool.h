/* The store's side of engine/read.h: freeing the idle handles when it closes. Engine only. */
#ifndef BSF_ENGINE_READ_POOL_H
#define BSF_ENGINE_READ_POOL_H

#include "engine/store.h"

/* Aborts and frees every idle handle. Called by bsf_store_close, alone on the store. */
void bsf_read_pool_free(bsf_store_t *store);

#endif
