/* The feed's bounded queue: many producers, one consumer, no locks. A ring of `capacity`
 * slots, each with a sequence number that says whose turn it is, and each with a cell of
 * `cell_bytes` preallocated bytes, so that a record that fits is copied without malloc.
 *
 * Producer: reserve a position (false: the queue is full), write into its cell (or anywhere
 * else), publish an item pointer (NULL: nothing after all). Consumer: peek at the oldest
 * position once it is published, use the item, then release the position. */
#ifndef BSF_FEED_FEED_QUEUE_H
#define BSF_FEED_FEED_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    atomic_size_t seq;
    void *item;
} bsf_feed_slot_t;

typedef struct {
    _Alignas(64) atomic_size_t head; /* next position to reserve */
    _Alignas(64) atomic_size_t tail; /* oldest position not released (written by the consumer) */
    _Alignas(64) size_t capacity;
    size_t cell_bytes;
    bsf_feed_slot_t *slots; /* owned */
    unsigned char *cells;   /* owned: capacity * cell_bytes, 64-byte aligned */
} bsf_feed_queue_t;

typedef struct {
    size_t pos;
    void *cell; /* cell_bytes of memory, the producer's until it publishes */
} bsf_feed_ticket_t;

/* cell_bytes is rounded up to a multiple of 64. Returns 0, or -1 when out of memory or
 * capacity is 0. */
int bsf_feed_queue_init(bsf_feed_queue_t *q, size_t capacity, size_t cell_bytes);
/* Frees the slots and cells (not items allocated elsewhere: consume them first). */
void bsf_feed_queue_destroy(bsf_feed_queue_t *q);

/* Producers (any thread). Returns false at once when the queue is full. */
bool bsf_feed_queue_reserve(bsf_feed_queue_t *q, bsf_feed_ticket_t *t);
/* Hands the reserved position to the consumer; `item` may be the cell, memory of the
 * producer's, or NULL. */
void bsf_feed_queue_publish(bsf_feed_queue_t *q, const bsf_feed_ticket_t *t, void *item);

/* The one consumer. True when the oldest position is published (*item is its item, possibly
 * NULL); false when the queue is empty or that position is still being written. */
bool bsf_feed_queue_peek(bsf_feed_queue_t *q, void **item);
/* Frees the oldest position (after bsf_feed_queue_peek returned true) for the producers. */
void bsf_feed_queue_release(bsf_feed_queue_t *q);
/* True when `item` lives in one of the queue's cells (the consumer must not free it). */
bool bsf_feed_queue_owns(const bsf_feed_queue_t *q, const void *item);

/* Positions reserved and not released (a snapshot; exact when nothing is in flight). */
size_t bsf_feed_queue_depth(const bsf_feed_queue_t *q);

#endif
