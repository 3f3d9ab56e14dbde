/* LMDB projections of the binding log: the bindings by id, the UE-address and subscriber
 * indexes, and the active-session counters.
 *
 * Every function takes the caller's transaction: writes happen inside the engine's write
 * transaction (together with the log append), reads inside any read transaction.
 * bsf_projection_apply is idempotent and order-insensitive: applying the same set of events
 * in any order leaves byte-identical sub-databases (checked by bsf_projection_digest). */
#ifndef BSF_PROJECTIONS_PROJECTION_H
#define BSF_PROJECTIONS_PROJECTION_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/discovery.h"
#include "core/event.h"
#include "projections/match.h"
#include "projections/record.h"

typedef struct {
    MDB_dbi bindings;   /* binding id -> record */
    MDB_dbi ipv4;       /* ipv4[4] | id -> "" */
    MDB_dbi ipv4_route; /* len[1] | masked ipv4[4] | id -> "" (ipv4FrameRouteList) */
    MDB_dbi ipv6;       /* len[1] | masked prefix[16] | id -> "" (prefixes and routes) */
    MDB_dbi mac;        /* mac[6] | id -> "" */
    MDB_dbi supi;       /* supi | 0 | id -> "" */
    MDB_dbi gpsi;       /* gpsi | 0 | id -> "" */
    MDB_dbi dnn;        /* lowercase dnn | 0 | snssai[5] | id -> "" (SamePcf by DNN/S-NSSAI) */
    MDB_dbi tombstones; /* hlc[8] | site[2] | id -> "" : tombstones, oldest first (for GC) */
    MDB_dbi counters;   /* name -> u64 (little endian); absent when zero */
    /* PCF for a UE bindings (projections/ue_projection.h); tombstones share ix_tombstones */
    MDB_dbi ue_bindings; /* binding id -> record (the binding a PcfForUeBinding) */
    MDB_dbi ue_supi;     /* supi | 0 | id -> "" */
    MDB_dbi ue_gpsi;     /* gpsi | 0 | id -> "" */
    /* PCF for an MBS session bindings (projections/mbs_projection.h) */
    MDB_dbi mbs_bindings; /* binding id -> record (a PcfMbsBinding) */
    MDB_dbi mbs_session;  /* "tmgi:..." or "ssm:..." | 0 | id -> "" */
    /* Audit state of PCF bindings (projections/audit_projection.h), schema 3 */
    MDB_dbi audit;        /* binding id -> audit record */
    /* Subscriptions to binding events (projections/sub_projection.h, schema 3) */
    MDB_dbi subscriptions; /* subscription id -> record (a BsfSubscription) */
    MDB_dbi sub_supi;      /* supi | 0 | id -> "" */
    MDB_dbi sub_gpsi;      /* gpsi | 0 | id -> "" */
    MDB_dbi sub_expiry;    /* expiry (16 hex digits of Unix ms) | 0 | id -> "" */
    /* (the MDB_dbi members above are consecutive, in the order of projection_dbis) */
    bool has_audit;         /* false: a schema-2 store opened read-only (no audit db yet) */
    bool has_subscriptions; /* false: the same, without the four subscription dbs */
} bsf_projection_t;

#define BSF_PROJECTION_DBS 20

/* Opens the sub-databases (creating them when `create`, which needs a write transaction).
 * Returns 0, MDB_NOTFOUND (missing and not `create`) or another LMDB code. */
int bsf_projection_open(MDB_txn *txn, bsf_projection_t *p, bool create);

/* Applies one event in the caller's write transaction (UE- and MBS-binding events
 * go to bsf_ue_projection_apply / bsf_mbs_projection_apply). `scratch` is the caller's reusable
 * buffer. Returns 0, -ENOMEM, or an LMDB code (MDB_MAP_FULL; MDB_CORRUPTED for a stored
 * record that does not parse). */
int bsf_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                         msgpack_sbuffer *scratch);

/* The stored form of a binding (the compressed frame a record holds), made without a
 * transaction so that it can be prepared on another thread: appended to `out`. Returns 0
 * or ENOMEM. */
int bsf_projection_binding_frame(const bsf_pcf_binding_t *b, msgpack_sbuffer *out);
/* bsf_projection_apply with the frame of ev->binding already made (NULL: made here). */
int bsf_projection_apply_framed(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                                const char *frame, size_t frame_len, msgpack_sbuffer *scratch);

/* Reads the record of a binding id: 0, MDB_NOTFOUND, or another LMDB error (MDB_CORRUPTED
 * when the value does not parse). Live and dead records are both returned. */
int bsf_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                       bsf_record_t *out);
/* The same for the record of `id` in the id -> record sub-database `dbi` (the bindings' or a
 * document kind's). `out` points into the transaction's pages. */
int bsf_projection_record_get(MDB_txn *txn, MDB_dbi dbi, const bsf_binding_id_t *id,
                              bsf_record_t *out);

/* Decodes a live record's binding into `zone`. Returns 0 or -1 (corrupt record; callers
 * report it as MDB_CORRUPTED). */
int bsf_record_decode_binding(const bsf_record_t *r, msgpack_zone *zone, bsf_pcf_binding_t *out);
/* The live record's binding as its msgpack map, decompressed and unpacked into `zone`.
 * Returns 0 or -1 (corrupt record). */
int bsf_record_unpack_binding(const bsf_record_t *r, msgpack_zone *zone, msgpack_object *out);

/* Discovery: the live binding matching `q` in `best` and the number of matches it was chosen
 * from. IPv6 by longest-prefix match: only the bindings whose most specific prefix holding
 * the query is the longest count, and the most recent of those wins (SBI and Rx alike).
 * IPv4 and MAC: the most recent of every match. best->record points into the transaction,
 * best->binding into `zone`. Returns 0 (n_matches may be 0), MDB_CORRUPTED (a record or
 * binding that does not parse), or another LMDB code. */
int bsf_projection_discover(const bsf_projection_t *p, MDB_txn *txn,
                            const bsf_discovery_query_t *q, msgpack_zone *zone, bsf_match_t *best,
                            size_t *n_matches);

/* Collects the live bindings that share a UE address with `b` (exact IPv4, IPv6 prefix of the
 * same length, MAC) and, when the binding carries a paraCom, the bindings of its SUPI (or,
 * without one, of its DNN / S-NSSAI). Duplicates are removed; at most `cap` are returned.
 * Returns 0 or an LMDB error. */
int bsf_projection_collect_candidates(const bsf_projection_t *p, MDB_txn *txn,
                                      const bsf_pcf_binding_t *b, msgpack_zone *zone,
                                      bsf_match_t *out, size_t cap, size_t *n);

/* Calls `visit` for each live binding id of a SUPI (or GPSI when `gpsi` is true). Returns 0
 * or an LMDB code. */
int bsf_projection_ids_by_subscriber(const bsf_projection_t *p, MDB_txn *txn, const char *value,
                                     bool gpsi, void (*visit)(void *ctx, const bsf_binding_id_t *),
                                     void *ctx);

/* Reads a counter ("total", "dnn/<dnn>", "snssai/<sst-SD>", "pcf/<key>"); 0 when absent. */
uint64_t bsf_projection_counter(const bsf_projection_t *p, MDB_txn *txn, const char *name);

/* Calls `visit` for every counter whose name starts with `prefix` (the name is valid during
 * the call). Returns 0 or an LMDB code. */
int bsf_projection_counters_each(const bsf_projection_t *p, MDB_txn *txn, const char *prefix,
                                 void (*visit)(void *ctx, const char *name, uint64_t value),
                                 void *ctx);

/* Removes up to `max` tombstones whose deregistration HLC is below `before_hlc` (oldest
 * first); `removed` says how many. A tombstone only has to outlive the replication delay: it
 * stops a late registration or update of the same id from bringing the binding back.
 * Returns 0 or an LMDB error. */
int bsf_projection_gc_tombstones(const bsf_projection_t *p, MDB_txn *txn, uint64_t before_hlc,
                                 size_t max, size_t *removed);

/* SHA-256 over every projection sub-database in key order. Returns 0 or an LMDB error. */
int bsf_projection_digest(const bsf_projection_t *p, MDB_txn *txn, uint8_t out[32]);

/* Removes every entry of every projection sub-database (used before a rebuild), in a write
 * transaction. Returns 0 or an LMDB code. */
int bsf_projection_clear(const bsf_projection_t *p, MDB_txn *txn);

#endif
