/* Pushing a node on and unlinking it from an intrusive doubly linked list: the idioms every
 * list of the project (connections, streams, requests, waiters, cache entries) repeats,
 * written once. A node is
 * any struct with `prev` and `next` pointers to its own type; the list is its first node
 * (`head`), and for a list that keeps one, its last (`tail`).
 *
 * Macros, as the node types differ; each argument is evaluated more than once, so pass plain
 * lvalues. They cannot fail. Thread: the list's owner. */
#ifndef BSF_COMMON_DLIST_H
#define BSF_COMMON_DLIST_H

/* Puts `node` first in the list that starts at `head`. */
#define BSF_DLIST_PUSH(head, node)                                                               \
    do {                                                                                         \
        (node)->prev = NULL;                                                                     \
        (node)->next = (head);                                                                   \
        if (head)                                                                                \
            (head)->prev = (node);                                                               \
        (head) = (node);                                                                         \
    } while (0)

/* Takes `node` out of the list that starts at `head`; node's own links are left as they are. */
#define BSF_DLIST_UNLINK(head, node)                                                             \
    do {                                                                                         \
        if ((node)->prev)                                                                        \
            (node)->prev->next = (node)->next;                                                   \
        else                                                                                     \
            (head) = (node)->next;                                                               \
        if ((node)->next)                                                                        \
            (node)->next->prev = (node)->prev;                                                   \
    } while (0)

/* The same for a list that also keeps its last node in `tail`. */
#define BSF_DLIST_UNLINK_TAIL(head, tail, node)                                                  \
    do {                                                                                         \
        if (!(node)->next)                                                                       \
            (tail) = (node)->prev;                                                               \
        BSF_DLIST_UNLINK(head, node);                                                            \
    } while (0)

#endif
