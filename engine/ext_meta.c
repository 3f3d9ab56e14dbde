/* Small values other modules keep in the store; see ext_meta.h. */
#include "engine/ext_meta.h"

#include "common/error.h"
#include "engine/store.h"

#include <stdio.h>
#include <string.h>

int bsf_ext_meta_string(bsf_store_t *s, const char *name, const char *candidate, char *out,
                        size_t cap, bool *created, char *err, size_t err_cap)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc) {
        snprintf(err, err_cap, "store: %s", bsf_strerror(rc));
        return -1;
    }
    size_t len = 0;
    *created = false;
    rc = bsf_store_get_meta(s, txn, name, out, cap, &len);
    if (rc == MDB_NOTFOUND) {
        len = strlen(candidate);
        rc = len < cap ? bsf_store_put_meta(s, txn, name, candidate, len) : MDB_BAD_VALSIZE;
        if (!rc) {
            memcpy(out, candidate, len);
            *created = true;
        }
    } else if (!rc && len >= cap) {
        rc = MDB_BAD_VALSIZE;
    }
    if (!rc) {
        out[len] = '\0';
        rc = mdb_txn_commit(txn);
    } else {
        mdb_txn_abort(txn);
    }
    if (rc) {
        snprintf(err, err_cap, "store (ext/%s): %s", name, bsf_strerror(rc));
        return -1;
    }
    return 0;
}

int bsf_ext_meta_put_string(bsf_store_t *s, const char *name, const char *value, char *err,
                            size_t err_cap)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (!rc) {
        rc = bsf_store_put_meta(s, txn, name, value, strlen(value));
        rc = rc ? (mdb_txn_abort(txn), rc) : mdb_txn_commit(txn);
    }
    if (rc) {
        snprintf(err, err_cap, "store (ext/%s): %s", name, bsf_strerror(rc));
        return -1;
    }
    return 0;
}

int bsf_ext_meta_get_string(bsf_store_t *s, const char *name, char *out, size_t cap, char *err,
                            size_t err_cap)
{
    MDB_txn *txn;
    size_t len = 0;
    out[0] = '\0';
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (!rc) {
        rc = bsf_store_get_meta(s, txn, name, out, cap, &len);
        mdb_txn_abort(txn);
    }
    if (rc == MDB_NOTFOUND)
        return 1;
    if (!rc && len >= cap)
        rc = MDB_BAD_VALSIZE;
    if (rc) {
        out[0] = '\0';
        snprintf(err, err_cap, "store (ext/%s): %s", name, bsf_strerror(rc));
        return -1;
    }
    out[len] = '\0';
    return 0;
}
