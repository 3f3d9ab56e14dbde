/* The log's archive: events that leave the embedded log (log.retention) are first written
 * here, durably, as segment files, so that the archive plus the live log give the whole
 * history (bsfctl history, export, rebuild --archive).
 *
 * A segment file `log-<first>-<last>.zst` (positions as 20 decimal digits) is one zstd frame
 * (no dictionary: `zstd -d` reads it) holding:
 *   header: "BSFLOGA1" (8 bytes), version u16 = 1, first u64, last u64, count u32
 *   count records: position u64, length u32, then `length` bytes of the event's contract
 *   bytes (docs/events.md), positions increasing
 * (integers big-endian). A segment is written as `<name>.tmp`, fsynced, renamed, and the
 * directory fsynced: a file with the final name is always complete. Leftover `.tmp` files
 * (a crash while writing) are removed when the archive is opened. */
#ifndef BSF_LOG_LOG_ARCHIVE_H
#define BSF_LOG_LOG_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#define BSF_LOG_ARCHIVE_MAGIC "BSFLOGA1"
#define BSF_LOG_ARCHIVE_VERSION 1
#define BSF_LOG_ARCHIVE_HEADER 30 /* magic 8 + version 2 + first 8 + last 8 + count 4 */

typedef struct {
    uint64_t last;     /* highest position archived; 0 when empty */
    uint64_t first;    /* lowest; 0 when empty */
    uint64_t bytes;    /* size of the segment files */
    uint64_t segments; /* their number */
} bsf_log_archive_stat_t;

/* A segment being built (one writer thread). */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    uint64_t first, last;
    uint32_t count;
} bsf_log_segment_t;

/* Creates `dir` when missing, removes leftover `.tmp` files and reads the segments' names
 * into `st`. Returns 0, or -1 with a message (the directory cannot be made or read). */
int bsf_log_archive_open(const char *dir, bsf_log_archive_stat_t *st, char *err, size_t err_cap);

/* The segments' names only: `st` as above. Returns 0, or a negated errno. */
int bsf_log_archive_stat(const char *dir, bsf_log_archive_stat_t *st);

void bsf_log_segment_init(bsf_log_segment_t *seg);
/* Adds an event (positions must increase). Returns 0 or -ENOMEM. */
int bsf_log_segment_add(bsf_log_segment_t *seg, uint64_t position, const void *event,
                        size_t len);
/* Compresses the segment into `dir` durably (file and directory fsynced) and empties it;
 * adds it to `st`. Returns 0, -ENOMEM, or a negated errno of the write (nothing is left
 * under the final name then). */
int bsf_log_segment_write(bsf_log_segment_t *seg, const char *dir, bsf_log_archive_stat_t *st);
void bsf_log_segment_free(bsf_log_segment_t *seg);

/* Calls `visit` for each archived event at positions >= from, in position order, until it
 * returns non-zero (then *stopped is set, when not NULL). The event is valid during the call
 * only. Any thread; segments are read one at a time. `last_visited` gets the highest
 * position visited (0: none). Returns 0, -ENOENT (no such directory), BSF_ECORRUPT (a
 * segment that does not decompress or parse; nothing after it is visited), -ENOMEM or a
 * negated errno. */
typedef int (*bsf_log_archive_visit_fn)(void *ctx, uint64_t position, const void *event,
                                        size_t len);
int bsf_log_archive_scan(const char *dir, uint64_t from, bsf_log_archive_visit_fn visit,
                         void *ctx, uint64_t *last_visited, int *stopped);

#endif
