#include "migrations/schema.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"

int bsf_schema_check(MDB_txn *txn, MDB_dbi meta, char *err, size_t err_cap)
{
    MDB_val k = {14, "schema_version"}, v;
    int rc = mdb_get(txn, meta, &k, &v);
    if (rc == MDB_NOTFOUND) {
        unsigned char version = BSF_SCHEMA_VERSION;
        v.mv_size = 1;
        v.mv_data = &version;
        rc = mdb_put(txn, meta, &k, &v, 0);
        if (rc) {
            snprintf(err, err_cap, "cannot write the schema version: %s", bsf_strerror(rc));
            return -1;
        }
        return 0;
    }
    if (rc) {
        snprintf(err, err_cap, "cannot read the schema version: %s", bsf_strerror(rc));
        return -1;
    }
    unsigned version = v.mv_size == 1 ? *(unsigned char *)v.mv_data : 0;
    if (version >= 1 && version < BSF_SCHEMA_VERSION) {
        /* 1, 2, 3 -> 4: the new sub-databases (UE and MBS bindings, audit, subscriptions)
         * exist, made by the caller; 3 -> 4 changes nothing stored (format-2 records read
         * as they are, new writes are format 3) */
        unsigned char next = BSF_SCHEMA_VERSION;
        MDB_val nv = {1, &next};
        if ((rc = mdb_put(txn, meta, &k, &nv, 0))) {
            snprintf(err, err_cap, "cannot migrate the schema to version %u: %s",
                     BSF_SCHEMA_VERSION, bsf_strerror(rc));
            return -1;
        }
        return 0;
    }
    if (version != BSF_SCHEMA_VERSION) {
        snprintf(err, err_cap,
                 "the store has schema version %u; this build reads versions 1 to %u",
                 version, BSF_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}
