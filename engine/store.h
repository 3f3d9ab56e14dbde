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
#include <stdbool.h>

#include "core/event.h"
#include "log/embedded_log.h"
#include "projections/projection.h"

typedef struct {
    MDB_env *env;
    MDB_dbi meta;
    bsf_projection_t proj;
    bsf_embedded_log_t log;
    bool read_only;
} bsf_store_t;

typedef struct {
    const char *path;   /* directory; created when missing (unless read_only) */
    size_t map_size_mb; /* upper bound of the store size; 0 = as recorded in the store */
    bool read_only;
    unsigned max_readers;
} bsf_store_options_t;

/* Returns 0, or -1 with a message in err. */
int bsf_store_open(bsf_store_t *s, const bsf_store_options_t *opt, char *err, size_t err_cap);
void bsf_store_close(bsf_store_t *s);

/* Encodes `ev`, appends it to the log and applies it. `buf` and `scratch` are reusable
 * buffers. Returns 0 or an LMDB error code (MDB_MAP_FULL when the store is full). */
int bsf_store_write_event(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                          msgpack_sbuffer *buf, msgpack_sbuffer *scratch, uint64_t *position);

/* Per-site state kept in `meta`: the last sequence number the site issued and its HLC. */
int bsf_store_load_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t *seq,
                              uint64_t *hlc);
int bsf_store_save_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t seq,
                              uint64_t hlc);

/* Bytes the environment occupies on disk (the data file). */
uint64_t bsf_store_file_bytes(const bsf_store_t *s);

#endif
