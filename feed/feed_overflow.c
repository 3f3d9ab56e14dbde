#include "feed/feed_overflow.h"

#include <stdlib.h>

void *bsf_feed_overflow_take(bsf_feed_t *f, size_t bytes, bsf_feed_drop_t *why)
{
    size_t before = atomic_fetch_add_explicit(&f->overflow_bytes, bytes, memory_order_relaxed);
    void *mem = before + bytes <= f->max_bytes ? malloc(bytes) : NULL;
    if (!mem) {
        atomic_fetch_sub_explicit(&f->overflow_bytes, bytes, memory_order_relaxed);
        *why = before + bytes > f->max_bytes ? BSF_FEED_DROP_QUEUE_BYTES : BSF_FEED_DROP_NO_MEMORY;
    }
    return mem;
}

void bsf_feed_release_snapshot(bsf_feed_t *f, bsf_feed_snapshot_t *snap)
{
    if (bsf_feed_queue_owns(&f->queue, snap))
        return;
    atomic_fetch_sub_explicit(&f->overflow_bytes, snap->bytes, memory_order_relaxed);
    free(snap);
}
