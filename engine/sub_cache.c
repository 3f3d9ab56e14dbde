/* The LRU cache of decoded subscriptions per SUPI / GPSI (engine/sub_cache.h). */
#include "engine/sub_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/dlist.h"
#include "common/str_pack.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

void bsf_sub_cache_init(bsf_sub_cache_t *c, size_t max_bytes)
{
    memset(c, 0, sizeof *c);
    c->max_bytes = max_bytes;
}

/* Bytes of a subscription's strings and pair array outside the struct. */
static size_t sub_extra(const bsf_subscription_t *s)
{
    size_t n = ALIGN8(s->n_add_pairs * sizeof *s->add_pairs);
    n += bsf_str_pack_size(s->notif_uri) + bsf_str_pack_size(s->notif_corre_id) +
         bsf_str_pack_size(s->supi) + bsf_str_pack_size(s->gpsi) +
         bsf_str_pack_size(s->pair.dnn) + bsf_str_pack_size(s->expiry) +
         bsf_str_pack_size(s->supp_feat);
    for (size_t i = 0; i < s->n_add_pairs; i++)
        n += bsf_str_pack_size(s->add_pairs[i].dnn);
    return ALIGN8(n);
}

/* Copies `s` into `d`, its pairs and strings from *pool on (sub_extra bytes). */
static void copy_sub(bsf_subscription_t *d, const bsf_subscription_t *s, char **pool)
{
    *d = *s;
    bsf_snssai_dnn_t *pairs = (bsf_snssai_dnn_t *)(void *)*pool;
    *pool += ALIGN8(s->n_add_pairs * sizeof *pairs);
    d->add_pairs = s->n_add_pairs ? pairs : NULL;
    for (size_t i = 0; i < s->n_add_pairs; i++) {
        pairs[i] = s->add_pairs[i];
        pairs[i].dnn = bsf_str_pack_put(pool, s->add_pairs[i].dnn);
    }
    d->notif_uri = bsf_str_pack_put(pool, s->notif_uri);
    d->notif_corre_id = bsf_str_pack_put(pool, s->notif_corre_id);
    d->supi = bsf_str_pack_put(pool, s->supi);
    d->gpsi = bsf_str_pack_put(pool, s->gpsi);
    d->pair.dnn = bsf_str_pack_put(pool, s->pair.dnn);
    d->expiry = bsf_str_pack_put(pool, s->expiry);
    d->supp_feat = bsf_str_pack_put(pool, s->supp_feat);
}

static bsf_sub_cache_entry_t **find(bsf_sub_cache_t *c, uint64_t h, const char *value,
                                    bool gpsi)
{
    if (!c->n_buckets)
        return NULL;
    bsf_sub_cache_entry_t **p = &c->buckets[h & (c->n_buckets - 1)];
    while (*p && ((*p)->h != h || (*p)->gpsi != gpsi || strcmp((*p)->value, value) != 0))
        p = &(*p)->hnext;
    return p;
}

static void unlink_lru(bsf_sub_cache_t *c, bsf_sub_cache_entry_t *x)
{
    BSF_DLIST_UNLINK_TAIL(c->newest, c->oldest, x);
    x->prev = x->next = NULL;
}

static void push_newest(bsf_sub_cache_t *c, bsf_sub_cache_entry_t *x)
{
    x->prev = NULL;
    x->next = c->newest;
    if (c->newest)
        c->newest->prev = x;
    c->newest = x;
    if (!c->oldest)
        c->oldest = x;
}

/* Unlinks and frees the entry at *p (a bucket slot). */
static void remove_at(bsf_sub_cache_t *c, bsf_sub_cache_entry_t **p)
{
    bsf_sub_cache_entry_t *x = *p;
    *p = x->hnext;
    unlink_lru(c, x);
    c->n--;
    c->bytes -= x->bytes;
    free(x);
}

const bsf_sub_cache_entry_t *bsf_sub_cache_get(bsf_sub_cache_t *c, uint64_t h,
                                               const char *value, bool gpsi)
{
    bsf_sub_cache_entry_t **p = find(c, h, value, gpsi);
    if (!p || !*p) {
        c->misses++;
        return NULL;
    }
    c->hits++;
    unlink_lru(c, *p);
    push_newest(c, *p);
    return *p;
}

/* Doubles the buckets when there are more entries than buckets (a failure keeps them). */
static void grow(bsf_sub_cache_t *c)
{
    if (c->n < c->n_buckets)
        return;
    size_t nb = c->n_buckets ? 2 * c->n_buckets : 256;
    bsf_sub_cache_entry_t **b = calloc(nb, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < c->n_buckets; i++)
        for (bsf_sub_cache_entry_t *x = c->buckets[i], *next; x; x = next) {
            next = x->hnext;
            x->hnext = b[x->h & (nb - 1)];
            b[x->h & (nb - 1)] = x;
        }
    free(c->buckets);
    c->buckets = b;
    c->n_buckets = nb;
}

static bsf_sub_cache_entry_t *make_entry(uint64_t h, const char *value, bool gpsi,
                                         const bsf_sub_cached_t *subs, size_t n)
{
    size_t head = ALIGN8(sizeof(bsf_sub_cache_entry_t) + strlen(value) + 1);
    size_t bytes = head + n * sizeof *subs;
    for (size_t i = 0; i < n; i++)
        bytes += sub_extra(&subs[i].sub);
    bsf_sub_cache_entry_t *x = malloc(bytes);
    if (!x)
        return NULL;
    memset(x, 0, sizeof *x);
    x->h = h;
    x->gpsi = gpsi;
    x->bytes = bytes;
    x->n = n;
    memcpy(x->value, value, strlen(value) + 1);
    x->subs = (bsf_sub_cached_t *)(void *)((char *)x + head);
    char *pool = (char *)x + head + n * sizeof *subs;
    for (size_t i = 0; i < n; i++) {
        x->subs[i].id = subs[i].id;
        char *start = pool;
        copy_sub(&x->subs[i].sub, &subs[i].sub, &pool);
        pool = start + sub_extra(&subs[i].sub);
    }
    return x;
}

const bsf_sub_cache_entry_t *bsf_sub_cache_put(bsf_sub_cache_t *c, uint64_t h,
                                               const char *value, bool gpsi,
                                               const bsf_sub_cached_t *subs, size_t n)
{
    bsf_sub_cache_drop(c, h, value, gpsi);
    bsf_sub_cache_entry_t *x = make_entry(h, value, gpsi, subs, n);
    if (!x)
        return NULL;
    grow(c);
    if (!c->n_buckets) {
        free(x);
        return NULL;
    }
    bsf_sub_cache_entry_t **b = &c->buckets[h & (c->n_buckets - 1)];
    x->hnext = *b;
    *b = x;
    push_newest(c, x);
    c->n++;
    c->bytes += x->bytes;
    while (c->bytes > c->max_bytes && c->oldest != x) {
        bsf_sub_cache_entry_t *old = c->oldest;
        remove_at(c, find(c, old->h, old->value, old->gpsi));
        c->evictions++;
    }
    return x;
}

void bsf_sub_cache_drop(bsf_sub_cache_t *c, uint64_t h, const char *value, bool gpsi)
{
    bsf_sub_cache_entry_t **p = find(c, h, value, gpsi);
    if (p && *p)
        remove_at(c, p);
}

void bsf_sub_cache_clear(bsf_sub_cache_t *c)
{
    while (c->newest)
        remove_at(c, find(c, c->newest->h, c->newest->value, c->newest->gpsi));
}

void bsf_sub_cache_destroy(bsf_sub_cache_t *c)
{
    bsf_sub_cache_clear(c);
    free(c->buckets);
    c->buckets = NULL;
    c->n_buckets = 0;
}
