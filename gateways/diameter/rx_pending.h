/* Forwarded requests waiting for their answer.
 *
 * freeDiameter keeps an opaque pointer with each request it sends (the answer callback's
 * data). The gateway stores a handle there instead of a pointer: the slot index and a
 * generation that changes on every use, so a late callback (after a timeout, a reroute or a
 * shutdown completed the request) finds nothing and never touches freed memory. The table is
 * bounded: it is also the gateway's limit of requests in flight. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_PENDING_H
#define BSF_GATEWAYS_DIAMETER_RX_PENDING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t gen; /* 0: free */
    void *tx;
    uint64_t deadline_ns; /* monotonic; the request is lost when still here after it */
} bsf_rx_pending_slot_t;

typedef struct {
    pthread_mutex_t mu;
    bsf_rx_pending_slot_t *slots;
    uint32_t *free_idx;
    size_t n_free, cap;
    uint64_t next_gen;
} bsf_rx_pending_t;

/* Returns 0 or ENOMEM / EINVAL. */
int bsf_rx_pending_init(bsf_rx_pending_t *p, size_t cap);
void bsf_rx_pending_destroy(bsf_rx_pending_t *p);

/* Stores `tx`; returns its handle (never 0), or 0 when the table is full. */
uintptr_t bsf_rx_pending_add(bsf_rx_pending_t *p, void *tx, uint64_t deadline_ns);
/* Removes and returns the tx of `handle`, or NULL when it is not there any more. */
void *bsf_rx_pending_take(bsf_rx_pending_t *p, uintptr_t handle);
/* Calls fn(tx, ctx) under the table's lock when `handle` is there (the tx cannot be taken
 * meanwhile). Returns 1 when called, 0 otherwise. */
int bsf_rx_pending_peek(bsf_rx_pending_t *p, uintptr_t handle, void (*fn)(void *tx, void *ctx),
                        void *ctx);
/* Removes up to `cap` entries whose deadline is before `now_ns` (all of them when now_ns is
 * UINT64_MAX) into `out`. Returns how many. */
size_t bsf_rx_pending_take_expired(bsf_rx_pending_t *p, uint64_t now_ns, void **out, size_t cap);
size_t bsf_rx_pending_count(bsf_rx_pending_t *p);

#endif
