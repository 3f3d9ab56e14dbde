/* The counted hash set of subscribed SUPIs / GPSIs (engine/sub_keyset.h). */
#include "engine/sub_keyset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t bsf_sub_keyset_hash(const char *value, size_t len, bool gpsi)
{
    uint64_t h = gpsi ? 0x9e3779b97f4a7c15ull : 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)value[i]) * 0x100000001b3ull;
    h ^= h >> 33; /* the murmur3 finaliser: FNV's low bits alone index badly */
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h ? h : 1;
}

static size_t slot_of(const bsf_sub_keyset_t *ks, uint64_t h)
{
    size_t i = (size_t)h & (ks->cap - 1);
    while (ks->hash[i] && ks->hash[i] != h)
        i = (i + 1) & (ks->cap - 1);
    return i;
}

/* Rehashes into `cap` slots, leaving out the hashes whose count fell to 0 unless a
 * transaction is open (its undo must find every slot it changed). */
static int resize(bsf_sub_keyset_t *ks, size_t cap)
{
    bsf_sub_keyset_t n = {.cap = cap};
    n.hash = calloc(cap, sizeof *n.hash);
    n.count = calloc(cap, sizeof *n.count);
    if (!n.hash || !n.count) {
        free(n.hash);
        free(n.count);
        return -ENOMEM;
    }
    for (size_t i = 0; i < ks->cap; i++) {
        if (!ks->hash[i] || (ks->count[i] == 0 && !ks->n_journal))
            continue;
        size_t j = slot_of(&n, ks->hash[i]);
        n.hash[j] = ks->hash[i];
        n.count[j] = ks->count[i];
        n.used++;
    }
    free(ks->hash);
    free(ks->count);
    ks->hash = n.hash;
    ks->count = n.count;
    ks->cap = cap;
    ks->used = n.used;
    return 0;
}

static int journal(bsf_sub_keyset_t *ks, uint64_t h, int delta)
{
    if (ks->n_journal == ks->cap_journal) {
        size_t cap = ks->cap_journal ? 2 * ks->cap_journal : 16;
        bsf_sub_keyset_change_t *j = realloc(ks->journal, cap * sizeof *j);
        if (!j)
            return -ENOMEM;
        ks->journal = j;
        ks->cap_journal = cap;
    }
    ks->journal[ks->n_journal++] = (bsf_sub_keyset_change_t){.delta = delta, .h = h};
    return 0;
}

static int apply(bsf_sub_keyset_t *ks, uint64_t h, int delta)
{
    if (2 * (ks->used + 1) > ks->cap) {
        size_t live = 0;
        for (size_t i = 0; i < ks->cap; i++)
            live += ks->hash[i] && (ks->count[i] || ks->n_journal);
        size_t cap = ks->cap ? ks->cap : 64;
        while (4 * (live + 1) > cap)
            cap *= 2;
        if (resize(ks, cap))
            return -ENOMEM;
    }
    size_t i = slot_of(ks, h);
    if (!ks->hash[i]) {
        ks->hash[i] = h;
        ks->used++;
    }
    ks->count[i] += delta;
    ks->total += (uint64_t)(int64_t)delta;
    return 0;
}

int bsf_sub_keyset_add(bsf_sub_keyset_t *ks, uint64_t h, int delta, bool journaled)
{
    if (journaled && journal(ks, h, delta))
        return -ENOMEM;
    if (apply(ks, h, delta)) {
        if (journaled)
            ks->n_journal--;
        return -ENOMEM;
    }
    return 0;
}

bool bsf_sub_keyset_has(const bsf_sub_keyset_t *ks, uint64_t h)
{
    if (!ks->cap || !ks->total)
        return false;
    size_t i = slot_of(ks, h);
    return ks->hash[i] && ks->count[i] > 0;
}

void bsf_sub_keyset_settle(bsf_sub_keyset_t *ks, bool committed)
{
    /* The undo needs no memory: while a transaction is open no slot is given up, so every
     * journaled hash still has its slot. */
    for (size_t i = ks->n_journal; !committed && i-- > 0;) {
        size_t k = slot_of(ks, ks->journal[i].h);
        ks->count[k] -= (int32_t)ks->journal[i].delta;
        ks->total -= (uint64_t)ks->journal[i].delta;
    }
    ks->n_journal = 0;
}

void bsf_sub_keyset_clear(bsf_sub_keyset_t *ks)
{
    free(ks->hash);
    free(ks->count);
    free(ks->journal);
    memset(ks, 0, sizeof *ks);
}
