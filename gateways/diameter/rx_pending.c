/* The table of forwarded requests waiting for an answer. */
#include "gateways/diameter/rx_pending.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_BITS 23u /* up to 8M slots; the rest of the handle is the generation */
#define INDEX_MASK ((1u << INDEX_BITS) - 1u)

int bsf_rx_pending_init(bsf_rx_pending_t *p, size_t cap)
{
    memset(p, 0, sizeof *p);
    if (cap == 0 || cap > INDEX_MASK)
        return EINVAL;
    p->slots = calloc(cap, sizeof *p->slots);
    p->free_idx = calloc(cap, sizeof *p->free_idx);
    if (!p->slots || !p->free_idx) {
        free(p->slots);
        free(p->free_idx);
        return ENOMEM;
    }
    int rc = pthread_mutex_init(&p->mu, NULL);
    if (rc) {
        free(p->slots);
        free(p->free_idx);
        return rc;
    }
    p->cap = cap;
    for (size_t i = 0; i < cap; i++)
        p->free_idx[i] = (uint32_t)(cap - 1 - i);
    p->n_free = cap;
    p->next_gen = 1;
    return 0;
}

void bsf_rx_pending_destroy(bsf_rx_pending_t *p)
{
    if (!p->slots)
        return;
    pthread_mutex_destroy(&p->mu);
    free(p->slots);
    free(p->free_idx);
    p->slots = NULL;
    p->free_idx = NULL;
}

uintptr_t bsf_rx_pending_add(bsf_rx_pending_t *p, void *tx, uint64_t deadline_ns)
{
    pthread_mutex_lock(&p->mu);
    if (p->n_free == 0) {
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    uint32_t i = p->free_idx[--p->n_free];
    uint64_t gen = p->next_gen++;
    p->slots[i].gen = gen;
    p->slots[i].tx = tx;
    p->slots[i].deadline_ns = deadline_ns;
    pthread_mutex_unlock(&p->mu);
    return (uintptr_t)((gen << INDEX_BITS) | i);
}

/* The slot of a handle when it is still in use by it; call with the lock held. */
static bsf_rx_pending_slot_t *slot_of(bsf_rx_pending_t *p, uintptr_t handle)
{
    uint64_t i = handle & INDEX_MASK, gen = (uint64_t)handle >> INDEX_BITS;
    if (i >= p->cap || gen == 0 || p->slots[i].gen != gen)
        return NULL;
    return &p->slots[i];
}

static void *release_locked(bsf_rx_pending_t *p, bsf_rx_pending_slot_t *s)
{
    void *tx = s->tx;
    s->gen = 0;
    s->tx = NULL;
    p->free_idx[p->n_free++] = (uint32_t)(s - p->slots);
    return tx;
}

void *bsf_rx_pending_take(bsf_rx_pending_t *p, uintptr_t handle)
{
    void *tx = NULL;
    pthread_mutex_lock(&p->mu);
    bsf_rx_pending_slot_t *s = slot_of(p, handle);
    if (s)
        tx = release_locked(p, s);
    pthread_mutex_unlock(&p->mu);
    return tx;
}

int bsf_rx_pending_peek(bsf_rx_pending_t *p, uintptr_t handle, void (*fn)(void *tx, void *ctx),
                        void *ctx)
{
    pthread_mutex_lock(&p->mu);
    bsf_rx_pending_slot_t *s = slot_of(p, handle);
    if (s)
        fn(s->tx, ctx);
    pthread_mutex_unlock(&p->mu);
    return s != NULL;
}

size_t bsf_rx_pending_take_expired(bsf_rx_pending_t *p, uint64_t now_ns, void **out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->cap && n < cap && p->n_free < p->cap; i++) {
        bsf_rx_pending_slot_t *s = &p->slots[i];
        if (s->gen && (now_ns == UINT64_MAX || s->deadline_ns < now_ns))
            out[n++] = release_locked(p, s);
    }
    pthread_mutex_unlock(&p->mu);
    return n;
}

size_t bsf_rx_pending_count(bsf_rx_pending_t *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->cap - p->n_free;
    pthread_mutex_unlock(&p->mu);
    return n;
}
