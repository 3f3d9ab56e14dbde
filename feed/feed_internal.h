/* The feed's state, shared by its API (feed.c, any thread), its Kafka producer thread
 * (feed_producer.c) and the memory of large records (feed_overflow.c). */
#ifndef BSF_FEED_FEED_INTERNAL_H
#define BSF_FEED_FEED_INTERNAL_H

#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "feed/feed.h"
#include "feed/feed_metrics.h"
#include "feed/feed_queue.h"
#include "feed/feed_snapshot.h"

/* Bytes of a queue cell: records up to this size (most SBI messages) are copied into the
 * queue's preallocated memory; larger ones are allocated, within feed.queue_max_mb. */
#define BSF_FEED_CELL_BYTES 1024

struct bsf_feed {
    /* Touched by every offer. */
    bsf_feed_queue_t queue;                   /* of bsf_feed_snapshot_t *, owned */
    _Alignas(64) atomic_size_t overflow_bytes; /* queued snapshots larger than a cell */
    atomic_uint_fast64_t next_transaction;
    atomic_bool closing;                      /* offers are refused from now on */
    bsf_feed_counters_t counters;

    /* Fixed at creation. */
    bsf_feed_settings_t settings;
    uint16_t site_id;
    uint64_t instance; /* start time, ms */
    size_t max_bytes; /* bound of overflow_bytes */

    /* The producer thread's. */
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    bsf_text_t scratch;      /* the record being encoded */
    bool client_full;        /* the client refused a record for lack of room: drop without
                                encoding until a poll shows room again */
    uint64_t last_report_ns; /* rate limit of the feed's diagnostics */
    unsigned long long reports_suppressed;
};

#endif
