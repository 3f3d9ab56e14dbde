/* An intrusive first-in first-out queue: the queued structure embeds a bsf_fifo_link_t and
 * BSF_FIFO_ENTRY gets the structure back from its link. The queue owns no memory; what is
 * queued stays the caller's. Not synchronised: the owner's lock guards the queue (typically
 * pushed on by any thread, emptied by the owner's worker). A zeroed bsf_fifo_t is empty. */
#ifndef BSF_COMMON_FIFO_H
#define BSF_COMMON_FIFO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bsf_fifo_link {
    struct bsf_fifo_link *next;
} bsf_fifo_link_t;

typedef struct {
    bsf_fifo_link_t *head, *tail;
} bsf_fifo_t;

/* The structure of type `type` whose member `member` is the link `l`. */
#define BSF_FIFO_ENTRY(l, type, member) ((type *)((char *)(l) - offsetof(type, member)))

/* Queues `l` last. `l` must not be queued already. */
void bsf_fifo_push(bsf_fifo_t *q, bsf_fifo_link_t *l);

/* Takes the first link off the queue. NULL when the queue is empty. */
bsf_fifo_link_t *bsf_fifo_pop(bsf_fifo_t *q);

/* Takes every link at once: the first (follow ->next, NULL-terminated), NULL when the queue was
 * empty. The queue is empty after. */
bsf_fifo_link_t *bsf_fifo_take_all(bsf_fifo_t *q);

static inline bool bsf_fifo_empty(const bsf_fifo_t *q)
{
    return !q->head;
}

#endif
