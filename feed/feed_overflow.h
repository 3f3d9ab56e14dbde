/* Memory of records too large for a queue cell: allocated by an offer (any thread) within
 * feed.queue_max_mb, released by whoever takes the record off the queue (the feed thread, or
 * the destruction). Used by feed.c and feed_producer.c; calls neither. */
#ifndef BSF_FEED_FEED_OVERFLOW_H
#define BSF_FEED_FEED_OVERFLOW_H

#include <stddef.h>

#include "feed/feed_internal.h"

/* `bytes` of memory for a large record, counted against the bound. Returns NULL with *why
 * BSF_FEED_DROP_QUEUE_BYTES (the bound is reached) or BSF_FEED_DROP_NO_MEMORY. */
void *bsf_feed_overflow_take(bsf_feed_t *f, size_t bytes, bsf_feed_drop_t *why);
/* Frees a snapshot taken off the queue unless it lives in a queue cell. */
void bsf_feed_release_snapshot(bsf_feed_t *f, bsf_feed_snapshot_t *snap);

#endif
