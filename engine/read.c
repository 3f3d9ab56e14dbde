/* Read handles: a pool of renewable read transactions per store (engine/read.h). */
#include "engine/read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/error.h"
#include "core/discovery.h"
#include "engine/read_pool.h"
#include "engine/store.h"
#include "projections/projection.h"

#define READ_ZONE_CHUNK 2048

struct bsf_read {
    bsf_store_t *store;
    MDB_txn *txn; /* NULL until the first begin; reset (not active) between snapshots */
    bool active;
    msgpack_zone zone;
    struct bsf_read *next; /* in the store's idle list */
};

int bsf_read_acquire(bsf_store_t *store, bsf_read_t **out)
{
    pthread_mutex_lock(&store->read_mu);
    bsf_read_t *r = store->read_idle;
    if (r)
        store->read_idle = r->next;
    pthread_mutex_unlock(&store->read_mu);
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r || !msgpack_zone_init(&r->zone, READ_ZONE_CHUNK)) {
            free(r);
            return -ENOMEM;
        }
        r->store = store;
    }
    r->next = NULL;
    *out = r;
    return 0;
}

void bsf_read_release(bsf_read_t *r)
{
    if (!r)
        return;
    bsf_read_end(r);
    bsf_store_t *s = r->store;
    pthread_mutex_lock(&s->read_mu);
    r->next = s->read_idle;
    s->read_idle = r;
    pthread_mutex_unlock(&s->read_mu);
}

void bsf_read_pool_free(bsf_store_t *store)
{
    bsf_read_t *r = store->read_idle;
    store->read_idle = NULL;
    while (r) {
        bsf_read_t *next = r->next;
        if (r->txn)
            mdb_txn_abort(r->txn);
        msgpack_zone_destroy(&r->zone);
        free(r);
        r = next;
    }
}

int bsf_read_begin(bsf_read_t *r)
{
    int rc = r->txn ? mdb_txn_renew(r->txn)
                    : mdb_txn_begin(r->store->env, NULL, MDB_RDONLY, &r->txn);
    if (rc)
        return bsf_err_from_lmdb(rc);
    msgpack_zone_clear(&r->zone);
    r->active = true;
    return 0;
}

void bsf_read_end(bsf_read_t *r)
{
    if (r->active)
        mdb_txn_reset(r->txn);
    r->active = false;
}

MDB_txn *bsf_read_txn(bsf_read_t *r)
{
    return r->txn;
}

bsf_store_t *bsf_read_store(bsf_read_t *r)
{
    return r->store;
}

/* Element i's creation order against element j's (> 0: i is the later). */
static int recency_cmp(const unsigned char *a, const unsigned char *b, size_t id_off,
                       size_t record_off)
{
    const bsf_record_t *ra = (const bsf_record_t *)(a + record_off);
    const bsf_record_t *rb = (const bsf_record_t *)(b + record_off);
    return bsf_discovery_recency_cmp(ra->created_hlc, (const bsf_binding_id_t *)(a + id_off),
                                     rb->created_hlc, (const bsf_binding_id_t *)(b + id_off));
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    for (size_t k = 0; k < size; k++) {
        unsigned char t = a[k];
        a[k] = b[k];
        b[k] = t;
    }
}

void bsf_read_sort_by_creation(void *matches, size_t n, size_t size, size_t id_off,
                               size_t record_off)
{
    unsigned char *m = matches;
    for (size_t i = 1; i < n; i++) /* insertion sort: a discovery has a few matches */
        for (size_t j = i;
             j > 0 && recency_cmp(m + (j - 1) * size, m + j * size, id_off, record_off) > 0; j--)
            swap_bytes(m + (j - 1) * size, m + j * size, size);
}

msgpack_zone *bsf_read_zone(bsf_read_t *r)
{
    return &r->zone;
}

int bsf_read_discover(bsf_read_t *r, const bsf_discovery_query_t *q, msgpack_zone *zone,
                      bsf_match_t *best, size_t *n)
{
    *n = 0;
    int rc = bsf_projection_discover(&r->store->proj, r->txn, q, zone, best, n);
    return bsf_err_from_lmdb(rc);
}

int bsf_read_binding(bsf_read_t *r, const bsf_binding_id_t *id, msgpack_zone *zone,
                     bsf_match_t *out)
{
    out->id = *id;
    int rc = bsf_projection_get(&r->store->proj, r->txn, id, &out->record);
    if (rc == MDB_NOTFOUND || (rc == 0 && out->record.state != BSF_RECORD_LIVE))
        return BSF_ENOTFOUND;
    if (rc)
        return bsf_err_from_lmdb(rc);
    if (bsf_record_unpack_binding(&out->record, zone, &out->doc))
        return MDB_CORRUPTED;
    return bsf_read_match_complete(out, zone);
}

int bsf_read_match_complete(bsf_match_t *m, msgpack_zone *zone)
{
    bsf_problem_t problem;
    return bsf_pcf_binding_decode(&m->doc, zone, &m->binding, &problem) ? MDB_CORRUPTED : 0;
}

uint64_t bsf_read_counter(bsf_read_t *r, const char *name)
{
    return bsf_projection_counter(&r->store->proj, r->txn, name);
}

int bsf_read_counters_each(bsf_read_t *r, const char *prefix,
                           void (*visit)(void *ctx, const char *name, uint64_t value), void *ctx)
{
    return bsf_err_from_lmdb(
        bsf_projection_counters_each(&r->store->proj, r->txn, prefix, visit, ctx));
}

int bsf_read_space(bsf_store_t *store, bsf_read_space_t *out)
{
    bsf_store_space_t sp;
    int rc = bsf_store_space(store, UINT64_MAX, &sp);
    if (rc)
        return bsf_err_from_lmdb(rc);
    out->map = sp.map;
    out->total = sp.total;
    out->fs_free = sp.fs_free;
    return 0;
}

uint64_t bsf_read_file_bytes(const bsf_store_t *store)
{
    return bsf_store_file_bytes(store);
}
