#include "engine/reader.h"

void bsf_reader_init(bsf_reader_t *r, bsf_store_t *store)
{
    r->env = store->env;
    r->txn = NULL;
    r->active = 0;
}

int bsf_reader_begin(bsf_reader_t *r, MDB_txn **txn)
{
    int rc = r->txn ? mdb_txn_renew(r->txn) : mdb_txn_begin(r->env, NULL, MDB_RDONLY, &r->txn);
    if (rc)
        return rc;
    r->active = 1;
    *txn = r->txn;
    return 0;
}

void bsf_reader_end(bsf_reader_t *r)
{
    if (r->active)
        mdb_txn_reset(r->txn);
    r->active = 0;
}

void bsf_reader_close(bsf_reader_t *r)
{
    if (r->txn)
        mdb_txn_abort(r->txn);
    r->txn = NULL;
    r->active = 0;
}
