#include "feed/feed_queue.h"

#include <stdint.h>
#include <stdlib.h>

/* Slot i holds seq == pos while it is free for the reservation of position pos, pos + 1 once
 * that position is published, and pos + capacity once the consumer released it (free for the
 * next lap). Positions only grow (a 64-bit counter does not wrap in practice), so any
 * capacity works. */

int bsf_feed_queue_init(bsf_feed_queue_t *q, size_t capacity, size_t cell_bytes)
{
    if (capacity == 0)
        return -1;
    cell_bytes = (cell_bytes + 63) / 64 * 64;
    q->slots = malloc(capacity * sizeof *q->slots);
    q->cells = cell_bytes ? aligned_alloc(64, capacity * cell_bytes) : NULL;
    if (!q->slots || (cell_bytes && !q->cells)) {
        free(q->slots);
        free(q->cells);
        return -1;
    }
    for (size_t i = 0; i < capacity; i++) {
        atomic_init(&q->slots[i].seq, i);
        q->slots[i].item = NULL;
    }
    q->capacity = capacity;
    q->cell_bytes = cell_bytes;
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    return 0;
}

void bsf_feed_queue_destroy(bsf_feed_queue_t *q)
{
    free(q->slots);
    free(q->cells);
    q->slots = NULL;
    q->cells = NULL;
    q->capacity = 0;
}

bool bsf_feed_queue_reserve(bsf_feed_queue_t *q, bsf_feed_ticket_t *t)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        bsf_feed_slot_t *slot = &q->slots[pos % q->capacity];
        size_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (diff < 0) {
            return false; /* the slot is still in use from the previous lap: full */
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
    t->pos = pos;
    t->cell = q->cells ? q->cells + (pos % q->capacity) * q->cell_bytes : NULL;
    return true;
}

void bsf_feed_queue_publish(bsf_feed_queue_t *q, const bsf_feed_ticket_t *t, void *item)
{
    bsf_feed_slot_t *slot = &q->slots[t->pos % q->capacity];
    slot->item = item;
    atomic_store_explicit(&slot->seq, t->pos + 1, memory_order_release);
}

bool bsf_feed_queue_peek(bsf_feed_queue_t *q, void **item)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    bsf_feed_slot_t *slot = &q->slots[pos % q->capacity];
    if (atomic_load_explicit(&slot->seq, memory_order_acquire) != pos + 1)
        return false;
    *item = slot->item;
    return true;
}

void bsf_feed_queue_release(bsf_feed_queue_t *q)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    bsf_feed_slot_t *slot = &q->slots[pos % q->capacity];
    slot->item = NULL;
    atomic_store_explicit(&q->tail, pos + 1, memory_order_relaxed);
    atomic_store_explicit(&slot->seq, pos + q->capacity, memory_order_release);
}

bool bsf_feed_queue_owns(const bsf_feed_queue_t *q, const void *item)
{
    uintptr_t p = (uintptr_t)item, start = (uintptr_t)q->cells;
    return q->cells && p >= start && p < start + q->capacity * q->cell_bytes;
}

size_t bsf_feed_queue_depth(const bsf_feed_queue_t *q)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
    return head > tail ? head - tail : 0;
}
