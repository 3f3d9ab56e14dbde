/* The engine's cache of decoded subscriptions, per SUPI or GPSI: what bsf_notify_match would
 * otherwise read and decode from the store for every binding event of a subscribed UE. An
 * entry holds this site's live subscriptions of one UE value (none is an entry too), in one
 * allocation. Bounded by `max_bytes` (notify.sub_cache_mb), least recently used first out;
 * the entry just put always stays, so the bound can be exceeded by that one entry.
 *
 * Exactness is the caller's (engine/sub_index.h): it drops the entries of every value a
 * subscription event touches, and clears the cache when a transaction that wrote one
 * aborts. Engine thread only; no LMDB here. */
#ifndef BSF_ENGINE_SUB_CACHE_H
#define BSF_ENGINE_SUB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/subscription.h"

typedef struct {
    bsf_binding_id_t id;
    bsf_subscription_t sub;
} bsf_sub_cached_t;

typedef struct bsf_sub_cache_entry {
    struct bsf_sub_cache_entry *hnext, *prev, *next; /* bucket chain; LRU list */
    uint64_t h;
    size_t bytes;              /* the allocation */
    size_t n;
    bsf_sub_cached_t *subs;    /* n, in the same allocation */
    bool gpsi;
    char value[];              /* the SUPI or GPSI, NUL-terminated */
} bsf_sub_cache_entry_t;

typedef struct {
    bsf_sub_cache_entry_t **buckets;
    size_t n_buckets, n, bytes, max_bytes;
    bsf_sub_cache_entry_t *newest, *oldest;
    uint64_t hits, misses, evictions;
} bsf_sub_cache_t;

/* An empty cache of at most `max_bytes` (0: only the entry last put). */
void bsf_sub_cache_init(bsf_sub_cache_t *c, size_t max_bytes);

/* The entry of (value, gpsi) whose hash is `h`, made the most recently used; NULL: none. */
const bsf_sub_cache_entry_t *bsf_sub_cache_get(bsf_sub_cache_t *c, uint64_t h,
                                               const char *value, bool gpsi);

/* Stores a deep copy of subs[0..n) as the entry of (value, gpsi), replacing one there, and
 * evicts the least recently used ones over the bound. Returns the entry (valid until the
 * next put, drop or clear), or NULL when out of memory (nothing cached). */
const bsf_sub_cache_entry_t *bsf_sub_cache_put(bsf_sub_cache_t *c, uint64_t h,
                                               const char *value, bool gpsi,
                                               const bsf_sub_cached_t *subs, size_t n);

/* Forgets the entry of (value, gpsi), if any. */
void bsf_sub_cache_drop(bsf_sub_cache_t *c, uint64_t h, const char *value, bool gpsi);

/* Forgets every entry (the bound stays). */
void bsf_sub_cache_clear(bsf_sub_cache_t *c);

/* Frees everything. */
void bsf_sub_cache_destroy(bsf_sub_cache_t *c);

#endif
