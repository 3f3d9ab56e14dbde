/* The whole history of a store: its archive's segments (log/log_archive.h), then the live
 * embedded log, as one sequence of events in position order. Positions the two both hold (a
 * segment written just before a crash, its events not yet deleted) are visited once. */
#ifndef BSF_LOG_LOG_HISTORY_H
#define BSF_LOG_LOG_HISTORY_H

#include "log/embedded_log.h"

typedef struct {
    uint64_t archived;    /* events visited from the archive */
    uint64_t live;        /* from the live log */
    uint64_t missing;     /* positions neither holds (trimmed without an archive) */
} bsf_log_history_stat_t;

/* Calls `visit` for each event at positions >= 1, archive first (when `archive_dir` is not
 * NULL), then the live log in `txn`, until it returns non-zero. The event is valid during the
 * call only; its stored form is given for the live log's events only (NULL for archived
 * ones). Returns 0, a code of bsf_log_archive_scan (an unreadable archive: nothing of the
 * live log is visited then) or of bsf_embedded_log_scan. */
int bsf_log_history_scan(const char *archive_dir, const bsf_embedded_log_t *log, MDB_txn *txn,
                         bsf_log_visit_stored_fn visit, void *ctx,
                         bsf_log_history_stat_t *stat);

#endif
