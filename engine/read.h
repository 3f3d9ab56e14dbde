/* The read side of the store, for the gateways (SBI, Rx, ops): lookups in a consistent
 * snapshot without LMDB's types. Writes go through engine/engine.h.
 *
 * A handle (bsf_read_t) is one renewable LMDB read transaction and a msgpack zone. Handles
 * come from a pool kept by the store: taking one that is idle costs a mutex and no
 * allocation, and beginning its snapshot renews the transaction instead of creating one
 * (LMDB's cheap path). An event-loop thread keeps its handle for its life (SBI workers); a
 * thread that reads now and then takes one per lookup (Rx, ops).
 *
 * Threads: a handle is used by one thread at a time (the store is opened with MDB_NOTLS, so
 * it may move between threads between uses). acquire/release may be called from any thread.
 * Every handle is released before bsf_store_close. */
#ifndef BSF_ENGINE_READ_H
#define BSF_ENGINE_READ_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/discovery.h"
#include "core/pcf_mbs_binding.h"
#include "core/pcf_ue_binding.h"
#include "projections/match.h"

typedef struct bsf_store bsf_store_t;
typedef struct bsf_read bsf_read_t;

/* A handle of `store` for the calling thread. Returns 0, or -ENOMEM (nothing taken). */
int bsf_read_acquire(bsf_store_t *store, bsf_read_t **out);
/* Ends a snapshot still open and gives the handle back to the pool. NULL is ignored. */
void bsf_read_release(bsf_read_t *r);

/* Starts a snapshot of the latest committed state. Returns 0; MDB_READERS_FULL (more
 * snapshots open than store.max_readers), MDB_BAD_RSLOT, MDB_PANIC, or a negated errno
 * (-ENOMEM) from LMDB: no snapshot is open then. */
int bsf_read_begin(bsf_read_t *r);
/* Ends the snapshot: records, bindings and names handed out since begin are invalid. */
void bsf_read_end(bsf_read_t *r);

/* The handle's zone, cleared by every bsf_read_begin: for bindings a lookup decodes when
 * the caller has no zone of its own. Owned by the handle. */
msgpack_zone *bsf_read_zone(bsf_read_t *r);

/* Discovery (inside a snapshot): the most recent live binding matching `q` in *best and
 * the number of live bindings matching it in *n.
 * best->record points into the snapshot, best->doc and best->binding into `zone`; the
 * binding holds only the members the filters read (bsf_read_match_complete decodes the
 * rest), best->doc all of it. Returns 0 (*n may be 0), MDB_CORRUPTED (a record that does not
 * parse), or another LMDB code. */
int bsf_read_discover(bsf_read_t *r, const bsf_discovery_query_t *q, msgpack_zone *zone,
                      bsf_match_t *best, size_t *n);

/* Decodes every member of m->doc into m->binding (into `zone`, valid as the doc is). Returns
 * 0 or MDB_CORRUPTED (a stored member that does not parse). The thread that holds the
 * match. */
int bsf_read_match_complete(bsf_match_t *m, msgpack_zone *zone);

/* The live binding `id` (inside a snapshot), decoded into `zone`. Returns 0, BSF_ENOTFOUND
 * (no such binding, or deregistered), MDB_CORRUPTED, or another LMDB code. */
int bsf_read_binding(bsf_read_t *r, const bsf_binding_id_t *id, msgpack_zone *zone,
                     bsf_match_t *out);

/* PCF for a UE bindings (engine/ue_read.c). A match's record points into the snapshot, its
 * binding into the zone given. */
typedef struct {
    bsf_binding_id_t id;
    bsf_record_t record;
    bsf_pcf_ue_binding_t binding;
} bsf_ue_match_t;

/* Discovery (inside a snapshot): the live UE bindings of `supi` (when not NULL) that also
 * have `gpsi` (when not NULL), or of `gpsi` alone; at least one must be given. At most `cap`
 * in `out`, oldest first (created HLC, then id); *n says how many. Returns 0, -EINVAL
 * (neither given), MDB_CORRUPTED or another LMDB code. */
int bsf_read_ue_discover(bsf_read_t *r, const char *supi, const char *gpsi, msgpack_zone *zone,
                         bsf_ue_match_t *out, size_t cap, size_t *n);

/* The live UE binding `id` (inside a snapshot), decoded into `zone`. Returns 0,
 * BSF_ENOTFOUND (no such binding, or deregistered), MDB_CORRUPTED, or another LMDB code. */
int bsf_read_ue_binding(bsf_read_t *r, const bsf_binding_id_t *id, msgpack_zone *zone,
                        bsf_ue_match_t *out);

/* PCF for an MBS session bindings (engine/mbs_read.c). */
typedef struct {
    bsf_binding_id_t id;
    bsf_record_t record;
    bsf_pcf_mbs_binding_t binding;
} bsf_mbs_match_t;

/* Discovery (inside a snapshot): the live MBS bindings whose session matches `session`
 * (bsf_mbs_session_id_matches: every identifier of the query equal), at most `cap`, oldest
 * first; *n says how many. Returns 0, MDB_CORRUPTED or another LMDB code. */
int bsf_read_mbs_discover(bsf_read_t *r, const bsf_mbs_session_id_t *session,
                          msgpack_zone *zone, bsf_mbs_match_t *out, size_t cap, size_t *n);

/* Active-session counters (inside a snapshot): "total", "ue/total" (UE bindings), "mbs/total" (MBS bindings), "dnn/<dnn>", "snssai/<sst-SD>",
 * "pcf/<key>". `counter` gives 0 for an absent counter (and on a read error). `each` calls
 * `visit` for every counter whose name starts with `prefix` (the name is valid during the
 * call); returns 0 or an LMDB code. */
uint64_t bsf_read_counter(bsf_read_t *r, const char *name);
int bsf_read_counters_each(bsf_read_t *r, const char *prefix,
                           void (*visit)(void *ctx, const char *name, uint64_t value),
                           void *ctx);

/* The store's size, for metrics (no snapshot needed; any thread but the engine's): `map` is
 * the map size, `total` what writes can still take, free pages counted (bsf_store_space),
 * `fs_free` the free space of the store's filesystem (UINT64_MAX when unknown).
 * Returns 0 or an LMDB code. */
typedef struct {
    uint64_t map, total, fs_free;
} bsf_read_space_t;
int bsf_read_space(bsf_store_t *store, bsf_read_space_t *out);
/* Bytes the store's data file occupies on disk (0 when it cannot be read). Any thread. */
uint64_t bsf_read_file_bytes(const bsf_store_t *store);

#endif
