/* Appending to an intrusive singly linked FIFO kept as a first and a last node: the idiom of
 * every hand-off queue of the project (worker posts, client submissions, audit answers, Rx
 * reroutes, restore batches, notifications), written once. A node is any struct with a
 * pointer to the next node (its name is the `link` argument, e.g. next); the queue is empty
 * when `head` is NULL.
 *
 * Macros, as the node types differ; each argument is evaluated more than once, so pass plain
 * lvalues. They cannot fail and take no lock. Thread: the queue's owner (or its lock's
 * holder). */
#ifndef BSF_COMMON_FIFO_H
#define BSF_COMMON_FIFO_H

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
