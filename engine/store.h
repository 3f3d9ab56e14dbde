/* The site's store: one LMDB environment holding the embedded event log, the projections
 * and a `meta` sub-database (schema version, the site's event sequence, the HLC).
 *
 * bsf_store_write_event is the one place where an event enters the store: it is encoded,
 * appended to the log and applied to the projections inside the caller's write
 * transaction. */
#ifndef BSF_ENGINE_STORE_H
#define BSF_ENGINE_STORE_H

#include <lmdb.h>
#include <msgpack.h>
#include <pthread.h>
#include <stdbool.h>

#include "core/event.h"
#include "log/embedded_log.h"
#include "projections/projection.h"

struct bsf_read;

/* Opaque to gateways (they see `struct bsf_store` through engine/engine.h and read through
 * engine/read.h); the engine, bsfctl and replication use the fields. */
typedef struct bsf_store {
    MDB_env *env;
    MDB_dbi meta;
    bsf_projection_t proj;
    bsf_embedded_log_t log;
    bool read_only;
    unsigned event_version; /* version bsf_store_write_event writes (core/event.h); 0: the
                               default. Set before the writer starts. */
    /* engine/read.h's handles not in use, kept with their reset read transactions. */
    pthread_mutex_t read_mu;
    struct bsf_read *read_idle;
} bsf_store_t;

typedef struct {
    const char *path;   /* directory; created when missing (unless read_only) */
    size_t map_size_mb; /* upper bound of the store size; 0 = as recorded in the store */
    bool read_only;
    unsigned max_readers;
    unsigned migration_batch; /* records per transaction of the record pass; 0: default */
} bsf_store_options_t;

/* Returns 0, or -1 with a message in err. Main thread, before any other thread uses it.
 * Read-write, it migrates an older store first: the schema (migrations/schema.h), then the
 * record pass (migrations/record_pass.h, progress in the log, resumable). */
int bsf_store_open(bsf_store_t *s, const bsf_store_options_t *opt, char *err, size_t err_cap);
/* Ends the idle read handles and closes the environment. Every handle must have been
 * released (bsf_read_release) and every other thread must be done with the store. */
void bsf_store_close(bsf_store_t *s);

/* Encodes `ev`, appends it to the log and applies it, in `txn` (a write transaction of the
 * calling thread: the engine's, or bsfctl's writer). `buf` and `scratch` are the caller's
 * reusable buffers. Returns 0; MDB_MAP_FULL (the store is full), MDB_TXN_FULL, another
 * LMDB code, -ENOMEM, or -EINVAL (the event does not encode). On failure the transaction
 * must be aborted. */
int bsf_store_write_event(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                          msgpack_sbuffer *buf, msgpack_sbuffer *scratch, uint64_t *position);

/* Appends an event received from the replicated log with its bytes unchanged (`raw`, the
 * caller's) and applies its decoding `ev`, in `txn` as above. Returns 0, an LMDB code
 * (MDB_MAP_FULL, ...) or -ENOMEM. */
int bsf_store_write_raw_event(bsf_store_t *s, MDB_txn *txn, const char *raw, size_t len,
                              const bsf_event_t *ev, msgpack_sbuffer *scratch, uint64_t *position);

/* Consumer positions kept in `meta` under "pos/<source>": where reading the source continues.
 * `load` gives 0 for a source never stored. Return 0, -EINVAL (`source` too long) or an
 * LMDB code; `save` needs a write transaction. */
int bsf_store_load_position(bsf_store_t *s, MDB_txn *txn, const char *source, uint64_t *pos);
int bsf_store_save_position(bsf_store_t *s, MDB_txn *txn, const char *source, uint64_t pos);

/* Small values of other modules kept in `meta` under "ext/<name>". `get` returns 0,
 * MDB_NOTFOUND when absent, -EINVAL (`name` too long) or another LMDB code, and copies at
 * most `cap` bytes into the caller's `out` (the full length in *len). `put` returns 0,
 * -EINVAL or an LMDB code (MDB_MAP_FULL), in a write transaction. */
int bsf_store_get_meta(bsf_store_t *s, MDB_txn *txn, const char *name, void *out, size_t cap,
                       size_t *len);
int bsf_store_put_meta(bsf_store_t *s, MDB_txn *txn, const char *name, const void *value,
                       size_t len);

/* Per-site state kept in `meta` ("site/<id>"): the highest sequence number of that site's
 * events in this store's log, and an HLC: for this site its clock, for another site the HLC
 * of that event. `load` gives 0/0 for a site never stored. Return 0 or an LMDB code (and
 * MDB_CORRUPTED for a value of the wrong size). */
int bsf_store_load_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t *seq,
                              uint64_t *hlc);
int bsf_store_save_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t seq,
                              uint64_t hlc);

/* What write transactions can still take, in bytes: `beyond` is the map past the data file's
 * last page, or what the filesystem can still give the file when that is less (statvfs of
 * the store directory: a disk smaller than the map fills first); `total` adds the file's
 * free pages (those a reader still sees count as free: they come back when it ends).
 * `fs_free` is the filesystem's free space (UINT64_MAX when statvfs fails) and `limit` the
 * size the store can reach: the map, or the file plus fs_free when that is smaller.
 * Counting free pages walks LMDB's free list, so it is done only when `beyond` is under
 * `scan_below` (0: never, then `total` = `beyond`; UINT64_MAX: always). Not inside a write
 * transaction of the same thread. Returns 0 or an LMDB error. */
typedef struct {
    uint64_t map, beyond, total;
    uint64_t fs_free, limit;
} bsf_store_space_t;
int bsf_store_space(bsf_store_t *s, uint64_t scan_below, bsf_store_space_t *out);

/* Bytes the environment occupies on disk (the data file); 0 when it cannot be read. Any
 * thread. */
uint64_t bsf_store_file_bytes(const bsf_store_t *s);

#endif
