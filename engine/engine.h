/* The engine: the single writer of the store.
 *
 * Commands from any thread are queued; the engine thread takes them in batches, runs each
 * one (decide, then append its events to the log and apply them, all in one LMDB write
 * transaction) and commits the batch with one fsync (group commit). Only then does it call
 * each command's `done`: nothing is acknowledged before it is durable.
 *
 * Readers use their own read transactions on the store's environment and never wait for
 * the writer. */
#ifndef BSF_ENGINE_ENGINE_H
#define BSF_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/command.h"
#include "engine/notify.h"

/* Kept opaque here so that gateways, which include this header, see no LMDB type: the store
 * is engine/store.h's, the transaction LMDB's (only the log backend's hooks use it). */
typedef struct bsf_store bsf_store_t;
struct MDB_txn;

/* What before_commit answers. */
#define BSF_ENGINE_HOOK_OK 0        /* go on and commit */
#define BSF_ENGINE_HOOK_EXPORTED 1  /* go on; the batch's own events now also exist outside the
                                       store (the replicated log), so their sequence numbers
                                       are never issued again, even if the commit fails */
#define BSF_ENGINE_HOOK_REFUSE (-1) /* abort the batch: every command fails with `problem` */

/* Hooks of the log backend, called on the engine thread. */
typedef struct {
    void *ctx;
    /* Inside the batch's write transaction, after its commands ran, before the commit.
     * `first_seq`..`last_seq` are this site's events of the batch (none when first > last).
     * Returns one of BSF_ENGINE_HOOK_*. */
    int (*before_commit)(void *ctx, struct MDB_txn *txn, uint64_t first_seq, uint64_t last_seq,
                         bsf_problem_t *problem);
    /* After the commit was tried (whenever before_commit did not refuse). */
    void (*after_commit)(void *ctx, bool committed);
    /* The highest log position whose events may leave the local log (the backend shipped
     * everything of this site up to there); NULL: any. Any thread (the retention thread). */
    uint64_t (*trim_limit)(void *ctx);
} bsf_engine_hooks_t;

/* A PCF binding removed without its PCF asking (audit, Diameter stale notification, operator),
 * as it was: for the deletion log (seed §3.34.1). Valid during the call only. */
typedef struct {
    const bsf_binding_id_t *id;
    const bsf_pcf_binding_t *binding;
    uint64_t created_hlc;
    bsf_dereg_reason_t reason;
    uint32_t attempts;       /* audit attempts */
    int64_t last_audited_ms; /* -1: never confirmed */
} bsf_removal_t;

typedef struct {
    uint16_t site_id;
    bool collision_detection;
    unsigned max_batch;      /* commands per transaction */
    unsigned queue_capacity; /* queued commands before submit refuses (503) */
    /* The commit window: a batch of fewer than commit_window_batch commands waits up to
     * commit_window_us (from when the engine took it) for more before its transaction
     * runs, so that one commit's fsyncs cover more commands. 0: no wait. */
    unsigned commit_window_us;
    unsigned commit_window_batch; /* capped at max_batch */
    bsf_engine_hooks_t hooks;
    uint64_t tombstone_horizon_ms; /* tombstones older than this are removed; 0: kept */
    /* Share of the map kept for writes that do not add a binding (updates, deregistrations,
     * other sites' events): registrations are refused (507) while less than this percentage
     * of the map is free, so that a full store can still shed bindings. 0: none. */
    unsigned reserve_percent;
    /* Called on the engine thread, inside the write transaction, for each bsf_removal_t;
     * then removals_settled says whether that transaction committed (the removals
     * happened) or not (they did not: a command retried alone reports them again). Neither
     * may block. NULL: none. */
    void (*on_removal)(void *ctx, const bsf_removal_t *removal);
    void (*removals_settled)(void *ctx, bool committed);
    void *removal_ctx;
    /* Notifications of subscriptions (engine/notify.h): matched in each transaction against
     * this site's subscriptions, handed over after the commit. deliver NULL: none. */
    bsf_notify_sink_t notify;
    /* Bound of the cache of decoded subscriptions per SUPI / GPSI (engine/sub_cache.h;
     * notify.sub_cache_mb). 0: only the UE at hand is kept. */
    size_t notify_cache_bytes;
} bsf_engine_config_t;

/* Upper bounds (seconds) of the write-transaction histogram; the last slot is +Inf. */
#define BSF_ENGINE_TXN_BOUNDS                                                                 \
    {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0}
#define BSF_ENGINE_TXN_BUCKETS 14

typedef struct {
    uint64_t commands;
    uint64_t batches;
    uint64_t events;
    uint64_t failed_batches;
    uint64_t commit_ns_total; /* time in mdb_txn_commit (the fsyncs) */
    uint64_t queue_depth;
    uint64_t tombstones_removed;
    uint64_t log_trimmed;     /* events deleted from the log (log.retention) */
    uint64_t max_batch_seen;
    uint64_t window_waits;    /* batches that waited in the commit window */
    uint64_t window_wait_ns;  /* their total wait */
    uint64_t log_position;
    uint64_t own_seq;         /* highest sequence number of this site's events in the store */
    uint64_t seq_floor;       /* see bsf_engine_raise_seq_floor */
    uint64_t hook_refusals;   /* batches refused by before_commit */
    uint64_t reserve_refusals; /* registrations refused because the reserve was reached */
    bool at_reserve;           /* registrations are being refused for lack of space */
    /* Write transactions, begin to commit (data_repository_invocations_seconds): per bucket
     * (not cumulative), their count and total time. */
    uint64_t txn_buckets[BSF_ENGINE_TXN_BUCKETS];
    uint64_t txn_count, txn_ns_total;
} bsf_engine_stats_t;

typedef struct bsf_engine bsf_engine_t;

/* Takes a store opened for writing (not owned; it outlives the engine). Main thread.
 * Returns 0 (*out is the caller's, freed with bsf_engine_destroy) or -1 with a message
 * (no memory, or the store's site state cannot be read). */
int bsf_engine_create(bsf_store_t *store, const bsf_engine_config_t *cfg, bsf_engine_t **out,
                      char *err, size_t err_cap);
/* Starts the engine thread. Main thread. Returns 0 or a negated errno (-EAGAIN). */
int bsf_engine_start(bsf_engine_t *e);
/* Queues a command; any thread. On success the engine owns `cmd` until it calls cmd->done
 * on the engine thread. Returns 0, BSF_EBUSY (the queue holds engine.queue_capacity
 * commands) or BSF_ESTOPPED (the engine is stopping): the command is not taken then and the
 * caller still owns it. */
int bsf_engine_submit(bsf_engine_t *e, bsf_command_t *cmd);
/* Finishes every queued command, then stops the thread. Main thread. */
void bsf_engine_stop(bsf_engine_t *e);
/* Stops (if needed) and frees. NULL is ignored. Main thread. */
void bsf_engine_destroy(bsf_engine_t *e);
/* A copy of the counters; any thread. */
void bsf_engine_stats(bsf_engine_t *e, bsf_engine_stats_t *out);

/* This site's events up to `seq` exist in the replicated log: until the store holds them all
 * (applied by BSF_CMD_APPLY commands), the engine issues no new event of its own, so no
 * sequence number is used twice. Writes are refused meanwhile (503). Any thread. */
void bsf_engine_raise_seq_floor(bsf_engine_t *e, uint64_t seq);

/* Events of the log at positions <= `through` may leave it (log/log_retention: they are past
 * the retention, shipped, archived). The engine thread deletes them in bounded transactions
 * between its command batches (never the last event). Any thread. */
void bsf_engine_allow_trim(bsf_engine_t *e, uint64_t through);

#endif
