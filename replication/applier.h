/* The consumer side of replication: reads the configured topics (every site's events) and
 * hands them to the engine in BSF_CMD_APPLY commands, which append the events this store
 * lacks to its log, apply them to the projections and store the consumer positions in the
 * same transaction, so a restart continues exactly where the store is.
 *
 * Flow control: at most kafka.apply_inflight commands are queued at the engine; messages
 * stay in librdkafka's buffers (no copy) until their command is done. A refused or failed
 * command makes the applier wait for the others, re-read the stored positions and read on
 * from there. Discovery never waits for any of this.
 *
 * An event of a version newer than this build reads holds its topic: nothing of that topic
 * is applied from its offset on (the stored position stays there) while the other topics
 * keep applying, until a release that reads the version starts from the stored position. */
#ifndef BSF_REPLICATION_APPLIER_H
#define BSF_REPLICATION_APPLIER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/store.h"
#include "replication/replication_settings.h"

typedef struct bsf_applier bsf_applier_t;

#define BSF_APPLIER_MAX_SITES 64
#define BSF_APPLIER_DELAY_BUCKETS_MS                                                          \
    {1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000,    \
     10000, 30000, 60000, 0}
#define BSF_APPLIER_DELAY_BUCKETS 24

typedef struct {
    uint16_t site;
    size_t topic;      /* where its events were last read */
    uint64_t applied;  /* its events applied by this process */
    uint64_t last_hlc; /* HLC of its last applied event */
} bsf_applier_site_t;

typedef struct {
    bool caught_up;   /* now: every topic read to its end and applied */
    bool reached_end; /* once: every topic applied up to where it ended when first read */
    uint64_t applied, skipped, bad_events, consumer_errors, commands, refused, replaced,
        replace_held;
    size_t n_topics;
    struct {
        int64_t high;      /* high watermark as last fetched; -1 unknown */
        uint64_t position; /* applied up to (the next offset to apply) */
        bool at_end;
        /* held: an event of a version newer than this build reads (docs/replication.md,
         * "Events of a newer version") stopped the topic at held_offset; 0 when not held */
        uint64_t held_version, held_offset;
    } topics[16];
    size_t n_sites;
    bsf_applier_site_t sites[BSF_APPLIER_MAX_SITES];
    uint64_t delay_buckets[BSF_APPLIER_DELAY_BUCKETS]; /* event HLC -> applied here */
    uint64_t delay_count, delay_sum_ms;
} bsf_applier_stats_t;

/* Main thread. Returns 0 (*out is the caller's, freed with bsf_applier_destroy) or -1 with
 * a message (no memory, the Kafka consumer cannot be made). */
int bsf_applier_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                       bsf_store_t *store, bsf_applier_t **out, char *err, size_t err_cap);
/* Reads the stored positions, assigns the topics and starts the thread. Main thread.
 * Returns 0 or -1 with a message (the store, the assignment or the thread failed). */
int bsf_applier_start(bsf_applier_t *a, bsf_engine_t *engine, char *err, size_t err_cap);
/* Waits until every topic is applied up to the end it had when the applier first reached it
 * (the log's tail at start-up, even while other sites keep writing), or `timeout_ms` passed.
 * Returns true when caught up. */
bool bsf_applier_wait_caught_up(bsf_applier_t *a, int timeout_ms);
/* After the engine stopped: stops the thread and releases the messages. Main thread. */
void bsf_applier_stop(bsf_applier_t *a);
/* Stops (if needed) and frees. NULL is ignored. Main thread. */
void bsf_applier_destroy(bsf_applier_t *a);
/* A copy of the counters. Any thread. */
void bsf_applier_stats(bsf_applier_t *a, bsf_applier_stats_t *out);
const char *bsf_applier_topic(const bsf_applier_t *a, size_t topic);

#endif
