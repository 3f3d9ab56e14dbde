/* Intrusive first-in first-out queues, in two forms for two uses. The queue owns no memory;
 * what is queued stays the caller's. Not synchronised: the owner's lock guards the queue.
 * - bsf_fifo_t: a queue of links embedded in the queued structure (BSF_FIFO_ENTRY gets the
 *   structure back), pushed on by any thread and popped one at a time by the owner's worker.
 *   A zeroed bsf_fifo_t is empty.
 * - BSF_FIFO_APPEND(_CHAIN): a typed queue kept as a first and a last node whose own `next`
 *   member links them (worker posts, client submissions, restore batches, notifications),
 *   where the consumer takes the whole chain and walks it by that member. Macros, as the node
 *   types differ; each argument is evaluated more than once, so pass plain lvalues. They cannot
 *   fail. */
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

/* Appends the chain `first`..`last` (already linked, last's link as the caller set it) to the
 * queue `head`/`tail`. */
#define BSF_FIFO_APPEND_CHAIN(head, tail, first, last, link)                                     \
    do {                                                                                         \
        if (tail)                                                                                \
            (tail)->link = (first);                                                              \
        else                                                                                     \
            (head) = (first);                                                                    \
        (tail) = (last);                                                                         \
    } while (0)

/* Appends the one node `node` (its link as the caller set it, normally NULL). */
#define BSF_FIFO_APPEND(head, tail, node, link) BSF_FIFO_APPEND_CHAIN(head, tail, node, node, link)

#endif
