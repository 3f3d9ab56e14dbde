#include <errno.h>
#include <openssl/evp.h>
#include <string.h>

#include "projections/projection.h"

static const MDB_dbi *projection_dbis(const bsf_projection_t *p, const char **names)
{
    static const char *const n[BSF_PROJECTION_DBS] = {
        "bindings", "ix_ipv4", "ix_ipv4_route", "ix_ipv6", "ix_mac",
        "ix_supi",  "ix_gpsi", "ix_dnn",        "ix_tombstones", "counters",
        "ue_bindings", "ix_ue_supi", "ix_ue_gpsi", "mbs_bindings", "ix_mbs_session",
        "audit", "subscriptions", "ix_sub_supi", "ix_sub_gpsi", "ix_sub_expiry"};
    memcpy(names, n, sizeof n);
    return &p->bindings; /* the members are consecutive MDB_dbi in that order */
}

static void hash_len(EVP_MD_CTX *ctx, size_t len)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(len >> (56 - 8 * i));
    EVP_DigestUpdate(ctx, b, 8);
}

int bsf_projection_digest(const bsf_projection_t *p, MDB_txn *txn, uint8_t out[32])
{
    const char *names[BSF_PROJECTION_DBS];
    const MDB_dbi *dbis = projection_dbis(p, names);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(ctx);
        return -ENOMEM;
    }
    int rc = 0;
    for (int i = 0; i < BSF_PROJECTION_DBS && !rc; i++) {
        hash_len(ctx, strlen(names[i]));
        EVP_DigestUpdate(ctx, names[i], strlen(names[i]));
        if ((&dbis[i] == &p->audit && !p->has_audit) ||
            (&dbis[i] >= &p->subscriptions && &dbis[i] <= &p->sub_expiry && !p->has_subscriptions))
            continue; /* absent: as empty */
        MDB_cursor *cur;
        rc = mdb_cursor_open(txn, dbis[i], &cur);
        if (rc)
            break;
        MDB_val k, v;
        while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
            hash_len(ctx, k.mv_size);
            EVP_DigestUpdate(ctx, k.mv_data, k.mv_size);
            hash_len(ctx, v.mv_size);
            EVP_DigestUpdate(ctx, v.mv_data, v.mv_size);
        }
        mdb_cursor_close(cur);
        rc = rc == MDB_NOTFOUND ? 0 : rc;
    }
    unsigned int len = 32;
    if (!rc && !EVP_DigestFinal_ex(ctx, out, &len))
        rc = -ENOMEM;
    EVP_MD_CTX_free(ctx);
    return rc;
}

int bsf_projection_clear(const bsf_projection_t *p, MDB_txn *txn)
{
    const char *names[BSF_PROJECTION_DBS];
    const MDB_dbi *dbis = projection_dbis(p, names);
    for (int i = 0; i < BSF_PROJECTION_DBS; i++) {
        if (&dbis[i] == &p->audit && !p->has_audit)
            continue;
        int rc = mdb_drop(txn, dbis[i], 0);
        if (rc)
            return rc;
    }
    return 0;
}
