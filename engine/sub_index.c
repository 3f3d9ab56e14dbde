/* The engine's subscription set and cache, kept in step with the store (engine/sub_index.h). */
#include "engine/sub_index.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "projections/sub_projection.h"

#define MAX_SUBS 64 /* subscriptions of one UE value looked at */

void bsf_sub_index_init(bsf_sub_index_t *x, size_t cache_bytes, uint16_t site)
{
    memset(x, 0, sizeof *x);
    x->site = site;
    bsf_sub_cache_init(&x->cache, cache_bytes);
}

uint64_t bsf_sub_index_hash(const char *value, bool gpsi)
{
    return bsf_sub_keyset_hash(value, strlen(value), gpsi);
}

bool bsf_sub_index_may_have(const bsf_sub_index_t *x, uint64_t h)
{
    return bsf_sub_keyset_has(&x->keys, h);
}

/* Counts the values of one index (value | 0 | id keys). */
static int count_index(bsf_sub_keyset_t *ks, MDB_txn *txn, MDB_dbi dbi, bool gpsi)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size <= 17)
            continue;
        if ((rc = bsf_sub_keyset_add(ks, bsf_sub_keyset_hash(k.mv_data, k.mv_size - 17, gpsi), 1,
                                     false)))
            break;
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int bsf_sub_index_rebuild(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn)
{
    bsf_sub_keyset_clear(&x->keys);
    bsf_sub_cache_clear(&x->cache);
    if (!s->proj.has_subscriptions)
        return 0;
    int rc = count_index(&x->keys, txn, s->proj.sub_supi, false);
    if (!rc)
        rc = count_index(&x->keys, txn, s->proj.sub_gpsi, true);
    if (rc)
        bsf_sub_keyset_clear(&x->keys);
    return rc;
}

typedef struct {
    bsf_binding_id_t ids[MAX_SUBS];
    size_t n;
} ids_t;

static bool add_id(void *ctx, const bsf_binding_id_t *id)
{
    ids_t *x = ctx;
    x->ids[x->n++] = *id;
    return x->n == MAX_SUBS;
}

int bsf_sub_index_entry(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, uint64_t h,
                        const char *value, bool gpsi, msgpack_zone *zone,
                        const bsf_sub_cache_entry_t **out)
{
    if ((*out = bsf_sub_cache_get(&x->cache, h, value, gpsi)))
        return 0;
    ids_t *ids = msgpack_zone_malloc(zone, sizeof *ids);
    bsf_sub_cached_t *subs = msgpack_zone_malloc(zone, MAX_SUBS * sizeof *subs);
    if (!ids || !subs)
        return -ENOMEM;
    ids->n = 0;
    size_t n = 0;
    int rc = bsf_sub_projection_ids(&s->proj, txn, value, gpsi, add_id, ids);
    for (size_t i = 0; !rc && i < ids->n; i++) {
        bsf_record_t rec;
        if (bsf_binding_id_site(&ids->ids[i]) != x->site)
            continue; /* the creating site notifies */
        rc = bsf_sub_projection_get(&s->proj, txn, &ids->ids[i], &rec);
        if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE)) {
            rc = 0;
            continue;
        }
        if (!rc && bsf_record_decode_subscription(&rec, zone, &subs[n].sub))
            rc = MDB_CORRUPTED;
        if (!rc)
            subs[n++].id = ids->ids[i];
    }
    if (!rc && !(*out = bsf_sub_cache_put(&x->cache, h, value, gpsi, subs, n)))
        rc = -ENOMEM;
    return rc;
}

int bsf_sub_index_warm(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, msgpack_zone *zone,
                       uint64_t budget_ns, size_t *n_values)
{
    uint64_t end = bsf_clock_mono_ns() + budget_ns;
    *n_values = 0;
    if (!s->proj.has_subscriptions || !x->keys.total)
        return 0;
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, s->proj.sub_supi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    char last[BSF_DOC_KEY_MAX] = "";
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        size_t len = k.mv_size - 17;
        if (k.mv_size <= 17 || len >= BSF_DOC_KEY_MAX ||
            (strlen(last) == len && memcmp(last, k.mv_data, len) == 0))
            continue; /* one value's further ids */
        memcpy(last, k.mv_data, len);
        last[len] = 0;
        const bsf_sub_cache_entry_t *en;
        msgpack_zone_clear(zone);
        if ((rc = bsf_sub_index_entry(x, s, txn, bsf_sub_index_hash(last, false), last, false,
                                      zone, &en)))
            break;
        if (x->cache.evictions)
            break; /* full: the rest is filled when used */
        if (++*n_values % 256 == 0 && bsf_clock_mono_ns() > end)
            break; /* start-up is not held up for long: the rest is filled when used */
    }
    mdb_cursor_close(cur);
    if (rc && rc != MDB_NOTFOUND)
        bsf_sub_cache_clear(&x->cache);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

static void add_value(bsf_sub_values_t *out, const char *v, bool gpsi)
{
    if (!v || strlen(v) >= BSF_DOC_KEY_MAX)
        return; /* not indexed (projections/sub_projection.c), so never matched either */
    snprintf(out->value[out->n], BSF_DOC_KEY_MAX, "%s", v);
    out->gpsi[out->n++] = gpsi;
}

/* The values of the live subscription `id` (none when it is not live). */
static int live_values(bsf_store_t *s, MDB_txn *txn, const bsf_binding_id_t *id,
                       msgpack_zone *zone, bsf_sub_values_t *out)
{
    out->n = 0;
    bsf_record_t rec;
    int rc = bsf_sub_projection_get(&s->proj, txn, id, &rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE))
        return 0;
    if (rc)
        return rc;
    bsf_subscription_t sub;
    msgpack_zone_clear(zone);
    if (bsf_record_decode_subscription(&rec, zone, &sub))
        return MDB_CORRUPTED;
    add_value(out, sub.supi, false);
    add_value(out, sub.gpsi, true);
    return 0;
}

int bsf_sub_index_before(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn,
                         const bsf_event_t *ev, msgpack_zone *zone, bsf_sub_values_t *old)
{
    (void)x;
    return live_values(s, txn, &ev->binding_id, zone, old);
}

/* Adds `delta` to each value's count and drops its cache entry. */
static int move(bsf_sub_index_t *x, const bsf_sub_values_t *v, int delta)
{
    for (size_t i = 0; i < v->n; i++) {
        uint64_t h = bsf_sub_index_hash(v->value[i], v->gpsi[i]);
        bsf_sub_cache_drop(&x->cache, h, v->value[i], v->gpsi[i]);
        int rc = bsf_sub_keyset_add(&x->keys, h, delta, true);
        if (rc)
            return rc;
    }
    return 0;
}

/* Fills the entries of the values again (a failure only leaves them to the next use). */
static void refill(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, msgpack_zone *zone,
                   const bsf_sub_values_t *v)
{
    for (size_t i = 0; i < v->n; i++) {
        const bsf_sub_cache_entry_t *en;
        msgpack_zone_clear(zone);
        if (bsf_sub_index_entry(x, s, txn, bsf_sub_index_hash(v->value[i], v->gpsi[i]),
                                v->value[i], v->gpsi[i], zone, &en))
            bsf_sub_cache_drop(&x->cache, bsf_sub_index_hash(v->value[i], v->gpsi[i]),
                               v->value[i], v->gpsi[i]);
    }
}

int bsf_sub_index_after(bsf_sub_index_t *x, bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                        msgpack_zone *zone, const bsf_sub_values_t *old)
{
    bsf_sub_values_t now;
    x->txn_wrote_sub = true;
    int rc = live_values(s, txn, &ev->binding_id, zone, &now);
    if (!rc)
        rc = move(x, &now, 1);
    if (!rc)
        rc = move(x, old, -1);
    if (!rc)
        refill(x, s, txn, zone, &now);
    return rc;
}

void bsf_sub_index_settle(bsf_sub_index_t *x, bool committed)
{
    bsf_sub_keyset_settle(&x->keys, committed);
    if (!committed && x->txn_wrote_sub)
        bsf_sub_cache_clear(&x->cache);
    x->txn_wrote_sub = false;
}

void bsf_sub_index_destroy(bsf_sub_index_t *x)
{
    bsf_sub_keyset_clear(&x->keys);
    bsf_sub_cache_destroy(&x->cache);
}
