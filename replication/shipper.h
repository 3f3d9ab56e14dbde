/* The outbox shipper: produces this site's events from the local log to the site's Kafka
 * topic, in sequence order, in Kafka transactions (transactional producer: idempotent,
 * acks=all, zstd; a new producer fences the previous one with the same transactional id).
 *
 * What is shipped is decided by Kafka, not by a local mark: when it (re)connects, the shipper
 * reads its topic's tail (read_committed) for the highest sequence number of this site, and
 * ships the local events above it. A position hint (log position, sequence number, Kafka
 * offset) is written lazily into the store's meta, piggybacked on the engine's next
 * transaction, only to bound that read. So a restart, a broker outage or a fatal producer
 * error neither loses nor duplicates an event.
 *
 * durability=local: a thread ships after each local commit; the engine never waits for it.
 * durability=replicated: the engine's before_commit hook ships the batch's events inside its
 * transaction (Kafka commits first, then LMDB; a Kafka failure refuses the batch). In both
 * modes the thread (re)connects in the background.
 *
 * State: the connection is one of DISCONNECTED -> CONNECTING -> (replicated: READY ->)
 * CONNECTED, and back to DISCONNECTED after a failed connect (doubling backoff, 200 ms to
 * 5 s) or a broken transaction; with durability=replicated a transaction the engine thread
 * breaks goes CONNECTED -> BROKEN, and the thread destroys that producer and reconnects.
 * Beside it: what is shipped (log position, sequence number, Kafka offset; the engine's
 * pending batch), the position hint (dirty / written in the running transaction) and the
 * thread's schedule. shipper.c names each transition (conn_*).
 *
 * Locking: one mutex guards all of that state. It is never held across a Kafka call or a
 * wait on the network: a connect, a transaction and a producer's destruction run with it
 * released, on a snapshot of the fields they need, and write their results back under it.
 * The only store call made under it is the hint's put into the caller's write transaction.
 * The producer itself is used outside the mutex by its one owner: the thread
 * (durability=local) or the engine thread (replicated, from CONNECTED until BROKEN). Timed
 * waits are on the monotonic clock (common/deadline.h). */
#ifndef BSF_REPLICATION_SHIPPER_H
#define BSF_REPLICATION_SHIPPER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "replication/replication_settings.h"

typedef struct bsf_shipper bsf_shipper_t;

typedef struct {
    bool connected;
    uint64_t shipped_seq;    /* highest sequence number of this site known to be in Kafka */
    uint64_t shipped_events; /* by this process */
    uint64_t transactions, aborted_transactions, failures, connects;
    uint64_t refused_batches; /* durability=replicated: batches refused (503) */
    uint64_t txn_ns_total, txn_ns_max;
    uint64_t txn_buckets[12]; /* transaction durations, see BSF_SHIPPER_TXN_BUCKETS_MS */
} bsf_shipper_stats_t;

#define BSF_SHIPPER_TXN_BUCKETS_MS {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 0}

/* Reads the position hint from the store (main thread, before start). Returns 0 or -1 with
 * a message (the store failed, or the hint is not 24 bytes); *out is the caller's, freed
 * with bsf_shipper_destroy. */
int bsf_shipper_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                       bsf_store_t *store, bsf_shipper_t **out, char *err, size_t err_cap);
/* Connects once (waiting up to `connect_timeout_ms`), which raises the engine's sequence
 * floor to what Kafka holds of this site, then starts the thread (which keeps trying when
 * the first connect failed). Returns 0, or -1 when the thread cannot start. */
int bsf_shipper_start(bsf_shipper_t *s, bsf_engine_t *engine, int connect_timeout_ms,
                      char *err, size_t err_cap);
/* After the engine stopped: ships what is left (durability=local, up to
 * kafka.shutdown_timeout_ms), writes the hint and stops the thread. Main thread. */
void bsf_shipper_stop(bsf_shipper_t *s);
/* Stops (if needed) and frees. NULL is ignored. Main thread. */
void bsf_shipper_destroy(bsf_shipper_t *s);
/* A copy of the counters. Any thread. */
void bsf_shipper_stats(bsf_shipper_t *s, bsf_shipper_stats_t *out);

/* The log position up to which this site's events are in Kafka (acknowledged: shipped, or
 * known from the topic's tail); 0 before anything is known. What is above it must stay in
 * the local log. Any thread. */
uint64_t bsf_shipper_shipped_position(bsf_shipper_t *s);

/* Engine hooks (ctx = the shipper), on the engine thread. before_commit returns one of
 * BSF_ENGINE_HOOK_* (REFUSE with `problem` set when Kafka did not take the batch). */
int bsf_shipper_before_commit(void *ctx, MDB_txn *txn, uint64_t first_seq, uint64_t last_seq,
                              bsf_problem_t *problem);
void bsf_shipper_after_commit(void *ctx, bool committed);

#endif
