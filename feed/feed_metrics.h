/* Counters of the feed (relaxed atomics: written by the gateways' threads and the feed
 * thread, read by the ops endpoint) and their Prometheus text. */
#ifndef BSF_FEED_FEED_METRICS_H
#define BSF_FEED_FEED_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "common/text.h"

/* Why a record was not handed to the broker. */
typedef enum {
    BSF_FEED_DROP_QUEUE_FULL,       /* the feed's queue held feed.queue_capacity records */
    BSF_FEED_DROP_QUEUE_BYTES,      /* ... or feed.queue_max_mb of large records */
    BSF_FEED_DROP_NO_MEMORY,        /* the copy or its encoding could not be allocated */
    BSF_FEED_DROP_CLIENT_QUEUE_FULL, /* the Kafka client's queue was full (broker away) */
    BSF_FEED_DROP_CLIENT_ERROR,     /* the Kafka client refused it (e.g. message too large) */
    BSF_FEED_DROP_SHUTDOWN,         /* offered while the feed was stopping */
    BSF_FEED_DROP_COUNT
} bsf_feed_drop_t;

/* offered = produced + dropped (every reason); produced = sent + delivery_failed + the
 * records still inside the client (client_queue). */
typedef struct {
    /* [protocol][direction][kind] as in feed_record.h */
    atomic_uint_fast64_t offered[2][2][2];
    atomic_uint_fast64_t dropped[BSF_FEED_DROP_COUNT];
    atomic_uint_fast64_t produced;         /* handed to the Kafka client */
    atomic_uint_fast64_t sent;             /* delivery reports without error */
    atomic_uint_fast64_t delivery_failed;  /* delivery reports with an error */
    atomic_uint_fast64_t produced_bytes;   /* encoded bytes handed to the client */
    atomic_uint_fast64_t client_queue;     /* gauge: messages inside the Kafka client */
} bsf_feed_counters_t;

typedef struct {
    uint64_t depth;          /* records waiting for the feed thread */
    uint64_t overflow_bytes; /* those of them too large for a queue cell (allocated) */
    uint64_t capacity;       /* feed.queue_capacity */
    uint64_t max_bytes;      /* feed.queue_max_mb in bytes: bound of overflow_bytes */
} bsf_feed_queue_gauges_t;

const char *bsf_feed_drop_name(bsf_feed_drop_t why);
void bsf_feed_count_drop(bsf_feed_counters_t *c, bsf_feed_drop_t why);
void bsf_feed_counters_write(const bsf_feed_counters_t *c, const bsf_feed_queue_gauges_t *q,
                             bsf_text_t *out);

#endif
