/* The embedded event log: every event the site applied (its own and, with replication,
 * other sites'), in local apply order, in the `log` sub-database of the store's LMDB
 * environment. Appends happen in the same write transaction as the projection change, so the
 * two can never disagree after a crash.
 *
 * Keys are 8-byte big-endian local positions from 1; values are encoded events
 * (core/event.h). */
#ifndef BSF_LOG_EMBEDDED_LOG_H
#define BSF_LOG_EMBEDDED_LOG_H

#include <lmdb.h>
#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    MDB_dbi dbi;
    uint64_t last; /* last appended position; 0 when empty */
} bsf_embedded_log_t;

/* Opens (when `create`, creates) the sub-database and reads the last position. Returns an
 * LMDB error code. */
int bsf_embedded_log_open(MDB_txn *txn, bsf_embedded_log_t *log, bool create);

/* Appends at position last + 1 and advances `last`. On error `last` is unchanged. If the
 * transaction is later aborted the caller restores `last` (see bsf_embedded_log_reload). */
int bsf_embedded_log_append(bsf_embedded_log_t *log, MDB_txn *txn, const void *event, size_t len,
                            uint64_t *position);

/* The stored form of an event (its compressed frame), made without a transaction so that
 * it can be prepared on another thread: appended to `out`. Returns 0 or ENOMEM. */
int bsf_embedded_log_frame(const void *event, size_t len, msgpack_sbuffer *out);
/* bsf_embedded_log_append of an event already in its stored form. */
int bsf_embedded_log_append_frame(bsf_embedded_log_t *log, MDB_txn *txn, const void *frame,
                                  size_t len, uint64_t *position);

/* Re-reads `last` from the database (after an aborted transaction). */
int bsf_embedded_log_reload(bsf_embedded_log_t *log, MDB_txn *txn);

/* Calls `visit` for each event at positions >= from, in order, until it returns non-zero.
 * Returns 0 or an LMDB error code. */
typedef int (*bsf_log_visit_fn)(void *ctx, uint64_t position, const void *event, size_t len);
int bsf_embedded_log_scan(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                          bsf_log_visit_fn visit, void *ctx);

/* Number of events and bytes of event data (for stats). */
int bsf_embedded_log_stat(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t *events,
                          uint64_t *first);

#endif
