/* The feed's API: creation, offers (any thread, lock-free), metrics, destruction. */
#include "feed/feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "feed/feed_internal.h"
#include "feed/feed_overflow.h"
#include "feed/feed_producer.h"
#include "feed/feed_snapshot.h"

int bsf_feed_create(const bsf_feed_settings_t *settings, uint16_t site_id, bsf_feed_t **out,
                    char *err, size_t err_cap)
{
    if (bsf_feed_settings_check(settings, err, err_cap))
        return -1;
    /* The struct has cache-line aligned members: allocate it aligned. */
    size_t size = (sizeof(bsf_feed_t) + 63) / 64 * 64;
    bsf_feed_t *f = aligned_alloc(64, size);
    if (!f) {
        snprintf(err, err_cap, "feed: out of memory");
        return -1;
    }
    memset(f, 0, size);
    if (bsf_feed_queue_init(&f->queue, settings->queue_capacity, BSF_FEED_CELL_BYTES)) {
        free(f);
        snprintf(err, err_cap, "feed: out of memory for a queue of %u records",
                 settings->queue_capacity);
        return -1;
    }
    atomic_init(&f->overflow_bytes, 0);
    atomic_init(&f->next_transaction, 0);
    atomic_init(&f->closing, false);
    atomic_init(&f->stop, false);
    f->settings = *settings;
    f->site_id = site_id;
    f->instance = bsf_clock_wall_ms();
    f->max_bytes = (size_t)settings->queue_max_mb << 20;
    if (bsf_feed_producer_start(f, err, err_cap)) {
        bsf_feed_queue_destroy(&f->queue);
        free(f);
        return -1;
    }
    *out = f;
    return 0;
}

static bool drop(bsf_feed_t *f, bsf_feed_drop_t why)
{
    bsf_feed_count_drop(&f->counters, why);
    return false;
}

bool bsf_feed_offer(bsf_feed_t *f, const bsf_feed_record_t *rec)
{
    unsigned p = rec->protocol == BSF_FEED_DIAMETER, d = rec->direction == BSF_FEED_EGRESS,
             k = rec->kind == BSF_FEED_RESPONSE;
    atomic_fetch_add_explicit(&f->counters.offered[p][d][k], 1, memory_order_relaxed);
    if (atomic_load_explicit(&f->closing, memory_order_relaxed))
        return drop(f, BSF_FEED_DROP_SHUTDOWN);
    bsf_feed_ticket_t t;
    if (!bsf_feed_queue_reserve(&f->queue, &t))
        return drop(f, BSF_FEED_DROP_QUEUE_FULL);
    bool copy = f->settings.copy_payload;
    size_t bytes = bsf_feed_snapshot_size(rec, copy, f->settings.max_payload_bytes);
    void *mem = t.cell;
    if (bytes > f->queue.cell_bytes) { /* a large record: allocated, within the byte bound */
        bsf_feed_drop_t why;
        mem = bsf_feed_overflow_take(f, bytes, &why);
        if (!mem) {
            bsf_feed_queue_publish(&f->queue, &t, NULL);
            return drop(f, why);
        }
    }
    bsf_feed_queue_publish(
        &f->queue, &t,
        bsf_feed_snapshot_write(rec, copy, f->settings.max_payload_bytes, mem, bytes));
    return true;
}

uint64_t bsf_feed_transaction_id(bsf_feed_t *f)
{
    return atomic_fetch_add_explicit(&f->next_transaction, 1, memory_order_relaxed) + 1;
}

bool bsf_feed_copies_payload(const bsf_feed_t *f)
{
    return f->settings.copy_payload;
}

void bsf_feed_destroy(bsf_feed_t *f)
{
    if (!f)
        return;
    atomic_store(&f->closing, true);
    bsf_feed_producer_stop(f);
    /* Offers that raced with the stop: counted, freed. */
    void *item;
    while (bsf_feed_queue_peek(&f->queue, &item)) {
        if (item) {
            bsf_feed_count_drop(&f->counters, BSF_FEED_DROP_SHUTDOWN);
            bsf_feed_release_snapshot(f, item);
        }
        bsf_feed_queue_release(&f->queue);
    }
    bsf_feed_queue_destroy(&f->queue);
    free(f);
}

void bsf_feed_write_metrics(void *feed, bsf_text_t *out)
{
    bsf_feed_t *f = feed;
    bsf_feed_queue_gauges_t q = {bsf_feed_queue_depth(&f->queue),
                                 atomic_load_explicit(&f->overflow_bytes, memory_order_relaxed),
                                 f->queue.capacity, f->max_bytes};
    bsf_feed_counters_write(&f->counters, &q, out);
}
