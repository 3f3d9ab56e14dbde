/* The tombstone index (see tombstone.h). */
#include "projections/tombstone.h"

#include <string.h>

#include "core/bytes.h"

static MDB_val tombstone_key(uint8_t key[26], uint64_t hlc, uint16_t site,
                             const bsf_binding_id_t *id)
{
    bsf_put_be64(key, hlc);
    key[8] = (uint8_t)(site >> 8);
    key[9] = (uint8_t)site;
    memcpy(key + 10, id->b, 16);
    return (MDB_val){26, key};
}

int bsf_tombstone_put(MDB_txn *txn, MDB_dbi tombstones, const bsf_record_t *dead, uint64_t hlc,
                      uint16_t site, const bsf_binding_id_t *id)
{
    uint8_t key[26];
    MDB_val kv, empty = {0, ""};
    if (dead) { /* a later deregistration: the entry moves */
        kv = tombstone_key(key, dead->hlc, dead->site, id);
        int rc = mdb_del(txn, tombstones, &kv, NULL);
        if (rc && rc != MDB_NOTFOUND)
            return rc;
    }
    kv = tombstone_key(key, hlc, site, id);
    return mdb_put(txn, tombstones, &kv, &empty, 0);
}
