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

int bsf_tombstone_bury(MDB_txn *txn, MDB_dbi tombstones, MDB_dbi records,
                       const bsf_record_t *dead, uint64_t hlc, uint16_t site,
                       const bsf_binding_id_t *id, msgpack_sbuffer *scratch)
{
    int rc = bsf_tombstone_put(txn, tombstones, dead, hlc, site, id);
    if (rc)
        return rc;
    bsf_record_t tomb = {.state = BSF_RECORD_DEAD, .site = site, .hlc = hlc};
    return bsf_tombstone_put_record(txn, records, id, &tomb, scratch);
}

int bsf_tombstone_put_record(MDB_txn *txn, MDB_dbi records, const bsf_binding_id_t *id,
                             const bsf_record_t *r, msgpack_sbuffer *scratch)
{
    bsf_record_write(r, scratch);
    MDB_val key = {16, (void *)id->b}, v = {scratch->size, scratch->data};
    return mdb_put(txn, records, &key, &v, 0);
}
