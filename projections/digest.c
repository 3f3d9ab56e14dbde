#include <errno.h>
#include <openssl/evp.h>
#include <string.h>

#include "projections/projection.h"
#include "projections/record.h"

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

/* A record in format 2's bytes (projections/record.h), whichever format it is stored in, so
 * that stores written before and after the compact header have the same digest. Hashes the
 * value as stored when it is not a record that parses (the digest then shows it). */
static void hash_record(EVP_MD_CTX *ctx, const MDB_val *v)
{
    bsf_record_t r;
    if (bsf_record_parse(v->mv_data, v->mv_size, &r)) {
        hash_len(ctx, v->mv_size);
        EVP_DigestUpdate(ctx, v->mv_data, v->mv_size);
        return;
    }
    uint8_t header[BSF_RECORD_HEADER_LIVE];
    size_t hlen = bsf_record_write_fixed_header(&r, header);
    hash_len(ctx, hlen + r.cookie_len + r.binding_len);
    EVP_DigestUpdate(ctx, header, hlen);
    if (r.state == BSF_RECORD_LIVE) {
        EVP_DigestUpdate(ctx, r.cookie, r.cookie_len);
        EVP_DigestUpdate(ctx, r.binding, r.binding_len);
    }
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
        bool records = &dbis[i] == &p->bindings || &dbis[i] == &p->ue_bindings ||
                       &dbis[i] == &p->mbs_bindings;
        MDB_val k, v;
        while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
            hash_len(ctx, k.mv_size);
            EVP_DigestUpdate(ctx, k.mv_data, k.mv_size);
            if (records) {
                hash_record(ctx, &v);
                continue;
            }
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
