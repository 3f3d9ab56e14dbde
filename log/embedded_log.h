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

/* Opens (when `create`, creates: needs a write transaction) the sub-database and reads the
 * last position. Returns 0, MDB_NOTFOUND (no log and not `create`) or another LMDB code. */
int bsf_embedded_log_open(MDB_txn *txn, bsf_embedded_log_t *log, bool create);

/* Appends at position last + 1 and advances `last`, in the caller's write transaction
 * (one writer thread at a time). Returns 0, -ENOMEM, or an LMDB code (MDB_MAP_FULL). On
 * error `last` is unchanged. If the transaction is later aborted the caller restores `last`
 * (see bsf_embedded_log_reload). */
int bsf_embedded_log_append(bsf_embedded_log_t *log, MDB_txn *txn, const void *event, size_t len,
                            msgpack_sbuffer *tmp, uint64_t *position);

/* Events up to this size are stored as they are; larger ones as a frame: the byte 0xc1
 * (never the first byte of an event) and the zstd-compressed event. Readers take both, so
 * stores written before or after this limit existed read alike. `tmp` of
 * bsf_embedded_log_append, when not NULL, is a buffer it may clear and reuse for the frame. */
#define BSF_LOG_PLAIN_MAX 192

/* The stored form of an event (plain or its compressed frame), made without a transaction so that
 * it can be prepared on another thread: appended to `out`. Returns 0 or ENOMEM. */
int bsf_embedded_log_frame(const void *event, size_t len, msgpack_sbuffer *out);
/* bsf_embedded_log_append of an event already in its stored form; the same results. */
int bsf_embedded_log_append_frame(bsf_embedded_log_t *log, MDB_txn *txn, const void *frame,
                                  size_t len, uint64_t *position);

/* Re-reads `last` from the database (after an aborted transaction). Returns 0 or an LMDB
 * code. */
int bsf_embedded_log_reload(bsf_embedded_log_t *log, MDB_txn *txn);

/* Calls `visit` for each event at positions >= from, in order, until it returns non-zero.
 * The event is valid during the call only. Any transaction of the calling thread. Returns
 * 0 (also when `visit` stopped), MDB_CORRUPTED (a frame that does not decompress), -ENOMEM
 * or another LMDB code. */
typedef int (*bsf_log_visit_fn)(void *ctx, uint64_t position, const void *event, size_t len);
int bsf_embedded_log_scan(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                          bsf_log_visit_fn visit, void *ctx);

/* A visitor that also gets the event as the log stores it (`event` itself when stored plain,
 * else its compressed frame; NULL and 0 for an event not read from a live log, such as an
 * archived one): what bsf_embedded_log_append_frame takes, so that copying an event into
 * another log does not compress it again. Both are valid during the call only. */
typedef int (*bsf_log_visit_stored_fn)(void *ctx, uint64_t position, const void *event,
                                       size_t len, const void *stored, size_t stored_len);
/* bsf_embedded_log_scan with a bsf_log_visit_stored_fn; the same results. */
int bsf_embedded_log_scan_stored(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                                 bsf_log_visit_stored_fn visit, void *ctx);

/* Adapts a bsf_log_visit_fn to a scan that takes a bsf_log_visit_stored_fn: pass
 * bsf_log_visit_unstored as the visitor and a bsf_log_unstored_t as its ctx. */
typedef struct {
    bsf_log_visit_fn visit;
    void *ctx;
} bsf_log_unstored_t;
int bsf_log_visit_unstored(void *ctx, uint64_t position, const void *event, size_t len,
                           const void *stored, size_t stored_len);

/* Deletes the oldest events, at positions <= through, at most `max` of them, never the last
 * one (it holds the next position: bsf_embedded_log_reload reads it), in the caller's write
 * transaction; `removed` says how many. LMDB reuses the freed pages for later appends.
 * Returns 0 or an LMDB code (the transaction must then be aborted). */
int bsf_embedded_log_trim(bsf_embedded_log_t *log, MDB_txn *txn, uint64_t through, size_t max,
                          size_t *removed);

/* Pages of the log's sub-database in bytes. Returns 0 or an LMDB code. */
int bsf_embedded_log_bytes(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t *bytes);

/* Number of events and the first position (for stats). Returns 0 or an LMDB code. */
int bsf_embedded_log_stat(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t *events,
                          uint64_t *first);

#endif
