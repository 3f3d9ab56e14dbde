/* A read transaction that an event-loop thread keeps and renews per request: beginning a
 * renewed LMDB read transaction costs far less than creating one. */
#ifndef BSF_ENGINE_READER_H
#define BSF_ENGINE_READER_H

#include <lmdb.h>

#include "engine/store.h"

typedef struct {
    MDB_env *env;
    MDB_txn *txn;
    int active;
} bsf_reader_t;

void bsf_reader_init(bsf_reader_t *r, bsf_store_t *store);
/* Starts a snapshot of the latest committed state. Returns 0 or an LMDB error. */
int bsf_reader_begin(bsf_reader_t *r, MDB_txn **txn);
/* Ends the snapshot; the transaction handle is kept for the next begin. */
void bsf_reader_end(bsf_reader_t *r);
void bsf_reader_close(bsf_reader_t *r);

#endif
