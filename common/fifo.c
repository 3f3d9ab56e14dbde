/* The intrusive FIFO (common/fifo.h). */
#include "common/fifo.h"

void bsf_fifo_push(bsf_fifo_t *q, bsf_fifo_link_t *l)
{
    l->next = NULL;
    BSF_FIFO_APPEND(q->head, q->tail, l, next);
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
