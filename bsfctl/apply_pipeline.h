/* Two-stage application of events to a store, for replay and rebuild: the calling thread
 * reads and prepares events (decoding, compression: engine/prepared_event.h) while a writer
 * thread appends and applies them in LMDB transactions. Events are written in the order
 * they are pushed, so the result is the same as applying them one by one.
 *
 *   pl = bsfctl_pipeline_start(store, commit_every, &hooks, err, cap);
 *   for each event:  item = bsfctl_pipeline_next(pl, &zone);   fill item from zone;
 *                    bsfctl_pipeline_push(pl);
 *   rc = bsfctl_pipeline_finish(pl);
 */
#ifndef BSFCTL_APPLY_PIPELINE_H
#define BSFCTL_APPLY_PIPELINE_H

#include <lmdb.h>
#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/prepared_event.h"

typedef struct {
    bsf_prepared_event_t pe;
    bool has_event;  /* false: the item only moves a position (event skipped or unreadable) */
    uint32_t source; /* the caller's (bsfctl replay: the topic) */
    uint64_t position;
} bsfctl_item_t;

typedef struct {
    void *ctx;
    /* On the writer thread, after an item is written: what the next commit must save. */
    void (*written)(void *ctx, const bsfctl_item_t *item);
    /* On the writer thread, in each transaction just before it commits. 0 or an LMDB error. */
    int (*before_commit)(void *ctx, MDB_txn *txn);
} bsfctl_pipeline_hooks_t;

typedef struct bsfctl_pipeline bsfctl_pipeline_t;

/* Starts the writer on `dst` (which must outlive the pipeline); it commits every
 * `commit_every` items. NULL with a message when it cannot start. */
bsfctl_pipeline_t *bsfctl_pipeline_start(bsf_store_t *dst, uint64_t commit_every,
                                         const bsfctl_pipeline_hooks_t *hooks, char *err,
                                         size_t cap);

/* The next item to fill and the zone to allocate its memory from (valid until the writer has
 * written it). NULL when the writer has failed: stop and call bsfctl_pipeline_finish. */
bsfctl_item_t *bsfctl_pipeline_next(bsfctl_pipeline_t *pl, msgpack_zone **zone);
/* Hands the item `next` gave, now filled, to the writer. */
void bsfctl_pipeline_push(bsfctl_pipeline_t *pl);

/* Writes what was pushed, commits and stops the writer; frees pl. Returns 0 or the LMDB
 * error that stopped the writer (nothing after the last successful commit is kept). */
int bsfctl_pipeline_finish(bsfctl_pipeline_t *pl);

#endif
