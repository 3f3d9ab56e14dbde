/* The SUPIs and GPSIs that have at least one live subscription, as 64-bit hashes with a count
 * each: "nobody subscribed to this UE" is answered without a store read. A hash collision
 * only makes a UE look subscribed (a store read finds nothing); an exact count per hash means
 * no false negative. Changes made inside the engine's open write transaction are journaled
 * and undone when it aborts (bsf_sub_keyset_settle). Engine thread only; no LMDB here. */
#ifndef BSF_ENGINE_SUB_KEYSET_H
#define BSF_ENGINE_SUB_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t delta;
    uint64_t h;
} bsf_sub_keyset_change_t;

typedef struct {
    uint64_t *hash;  /* 0: an empty slot (a hash of 0 is stored as 1) */
    int32_t *count;  /* subscriptions of the hash; 0 for a slot that had some */
    size_t cap, used; /* slots (a power of two, 0 before the first add), slots not empty */
    uint64_t total;   /* sum of the counts: 0 when no UE has a subscription */
    bsf_sub_keyset_change_t *journal; /* changes of the open transaction */
    size_t n_journal, cap_journal;
} bsf_sub_keyset_t;

/* The hash of a SUPI (gpsi false) or GPSI value (`len` bytes, no NUL needed). */
uint64_t bsf_sub_keyset_hash(const char *value, size_t len, bool gpsi);

/* Adds `delta` (+1 or -1) to the count of `h`; `journal`: remembered for an abort. Returns 0
 * or -ENOMEM (nothing changed). */
int bsf_sub_keyset_add(bsf_sub_keyset_t *ks, uint64_t h, int delta, bool journal);

/* True when `h` has a subscription (or shares its hash with one that has). */
bool bsf_sub_keyset_has(const bsf_sub_keyset_t *ks, uint64_t h);

/* The open transaction ended: committed, its changes stay; otherwise they are undone. */
void bsf_sub_keyset_settle(bsf_sub_keyset_t *ks, bool committed);

/* Frees the tables (the set is then empty and usable again). */
void bsf_sub_keyset_clear(bsf_sub_keyset_t *ks);

#endif
