/* log.retention: events older than the retention leave the local log, into the archive
 * first when log.archive_dir is set (log/log_archive.h), and with log.backend = kafka only
 * once shipped (the engine hooks' trim_limit).
 *
 * A thread of its own ("bsf-retention") finds the events past the retention with a read
 * transaction, writes them to an archive segment (compressed, fsynced: file and directory)
 * and only then lets the engine delete them (bsf_engine_allow_trim), which the engine does in
 * bounded transactions between its command batches. Neither the archive's I/O nor the scan
 * ever runs in the engine's write path. A crash between the segment's write and the deletion
 * leaves events in both, which readers see once (log/log_history.h) and which are not
 * archived twice (the archive's last position is read at start). */
#ifndef BSF_ENGINE_LOG_RETENTION_H
#define BSF_ENGINE_LOG_RETENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "engine/engine.h"
#include "log/log_archive.h"

typedef struct {
    uint64_t retention_ms;   /* 0: no thread, nothing leaves */
    const char *archive_dir; /* NULL or "": what leaves is dropped (copied at create) */
    uint64_t (*limit)(void *ctx); /* the backend's shipped position; NULL: none */
    void *limit_ctx;
    unsigned batch;     /* events per round (and archive segment); 0: 20,000 */
    unsigned period_ms; /* between rounds that found nothing more; 0: 1,000 */
} bsf_log_retention_config_t;

typedef struct {
    uint64_t oldest_position; /* first event of the live log; 0 when empty */
    uint64_t oldest_ms;       /* its HLC time (Unix ms); 0 when unknown */
    uint64_t log_events, log_bytes;
    uint64_t allowed;         /* positions <= allowed were handed to the engine to delete */
    uint64_t rounds, failures;
    bsf_log_archive_stat_t archive;
    bool archiving;
} bsf_log_retention_stats_t;

typedef struct bsf_log_retention bsf_log_retention_t;

/* Whether the event at `position`, of HLC time `event_ms`, may leave the log at `now_ms`:
 * older than `retention_ms` (0: never), at or below `limit` (shipped), and not `last` (the
 * log's last event, which keeps the next position). Pure; any thread. */
bool bsf_log_trim_due(uint64_t position, uint64_t event_ms, uint64_t now_ms,
                      uint64_t retention_ms, uint64_t limit, uint64_t last);

/* Opens the archive (when set). Main thread. Returns 0 (*out is the caller's, freed with
 * bsf_log_retention_destroy; NULL when retention_ms is 0) or -1 with a message. */
int bsf_log_retention_create(bsf_store_t *store, bsf_engine_t *engine,
                             const bsf_log_retention_config_t *cfg, bsf_log_retention_t **out,
                             char *err, size_t err_cap);
/* Starts the thread. Main thread. Returns 0 or a negated errno. NULL: 0. */
int bsf_log_retention_start(bsf_log_retention_t *r);
/* Runs one round on the calling thread (tests; the thread must not be running): returns
 * the number of events handed to the engine, or a negative code. */
long bsf_log_retention_round(bsf_log_retention_t *r, uint64_t now_ms);
/* Stops the thread (before the engine stops; the stats stay readable). NULL is ignored. Main
 * thread. */
void bsf_log_retention_stop(bsf_log_retention_t *r);
/* Stops (if needed) and frees, once nothing reads the stats. NULL is ignored. Main thread. */
void bsf_log_retention_destroy(bsf_log_retention_t *r);
void bsf_log_retention_stats(bsf_log_retention_t *r, bsf_log_retention_stats_t *out);
/* Prometheus text of the stats (bsf_ops_metrics_fn; ctx = the retention, may be NULL). */
void bsf_log_retention_write_metrics(void *ctx, bsf_text_t *out);

#endif
