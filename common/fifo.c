/* The intrusive FIFO (common/fifo.h). */
#include "common/fifo.h"

void bsf_fifo_push(bsf_fifo_t *q, bsf_fifo_link_t *l)
{
    l->next = NULL;
    bsf_fifo_link_t **end = q->tail ? &q->tail->next : &q->head; /* empty: l is the head */
    *end = l;
    q->tail = l;
}

bsf_fifo_link_t *bsf_fifo_pop(bsf_fifo_t *q)
{
    bsf_fifo_link_t *l = q->head;
    if (!l)
        return NULL;
    q->head = l->next;
    if (!q->head)
        q->tail = NULL;
    return l;
}

bsf_fifo_link_t *bsf_fifo_take_all(bsf_fifo_t *q)
{
    bsf_fifo_link_t *l = q->head;
    q->head = q->tail = NULL;
    return l;
}
