/* The prepare / write pipeline of bsfctl replay and rebuild (see apply_pipeline.h). Items
 * travel in batches, so that the two threads meet once per batch, not once per event. */
#include "bsfctl/apply_pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fifo.h"

#define BATCH_ITEMS 1024
#define BATCHES 4 /* the reader can prepare up to 3 batches ahead of the writer */

typedef struct batch {
    struct batch *next;
    size_t n;
    msgpack_zone zone;
    bsfctl_item_t items[BATCH_ITEMS];
} batch_t;

struct bsfctl_pipeline {
    bsf_store_t *dst;
    uint64_t commit_every;
    bsfctl_pipeline_hooks_t hooks;
    pthread_t writer;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    batch_t *free_list;              /* batches the reader may fill */
    batch_t *full_head, *full_tail;  /* batches waiting for the writer, in order */
    batch_t *filling;                /* the reader's */
    bool stopping;                   /* no more batches will come */
    int err;                         /* the writer's first error */
    batch_t batches[BATCHES];
};

static batch_t *take_full(bsfctl_pipeline_t *pl)
{
    pthread_mutex_lock(&pl->mu);
    while (!pl->full_head && !pl->stopping)
        pthread_cond_wait(&pl->cv, &pl->mu);
    batch_t *b = pl->full_head;
    if (b && !(pl->full_head = b->next))
        pl->full_tail = NULL;
    pthread_mutex_unlock(&pl->mu);
    return b;
}

static void give_back(bsfctl_pipeline_t *pl, batch_t *b, int err)
{
    b->n = 0;
    msgpack_zone_clear(&b->zone);
    pthread_mutex_lock(&pl->mu);
    if (err && !pl->err)
        pl->err = err;
    b->next = pl->free_list;
    pl->free_list = b;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
}

static int commit(bsfctl_pipeline_t *pl, MDB_txn **txn, bool reopen)
{
    int rc = pl->hooks.before_commit ? pl->hooks.before_commit(pl->hooks.ctx, *txn) : 0;
    if (rc) {
        mdb_txn_abort(*txn);
        *txn = NULL;
        return rc;
    }
    rc = mdb_txn_commit(*txn);
    *txn = NULL;
    if (!rc && reopen)
        rc = mdb_txn_begin(pl->dst->env, NULL, 0, txn);
    return rc;
}

static void *writer_main(void *arg)
{
    bsfctl_pipeline_t *pl = arg;
    MDB_txn *txn = NULL;
    msgpack_sbuffer scratch;
    msgpack_sbuffer_init(&scratch);
    uint64_t since_commit = 0;
    int err = mdb_txn_begin(pl->dst->env, NULL, 0, &txn);
    batch_t *b;
    while ((b = take_full(pl))) {
        for (size_t i = 0; i < b->n && !err; i++) {
            const bsfctl_item_t *it = &b->items[i];
            if (it->has_event)
                err = bsf_store_write_prepared(pl->dst, txn, &it->pe, &scratch, NULL);
            if (!err && pl->hooks.written)
                pl->hooks.written(pl->hooks.ctx, it);
            if (!err && ++since_commit == pl->commit_every) {
                err = commit(pl, &txn, true);
                since_commit = 0;
            }
        }
        /* after an error the batches are only given back, so that the reader never waits */
        give_back(pl, b, err);
    }
    if (!err)
        err = commit(pl, &txn, false);
    if (txn)
        mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&scratch);
    if (err) {
        pthread_mutex_lock(&pl->mu);
        if (!pl->err)
            pl->err = err;
        pthread_mutex_unlock(&pl->mu);
    }
    return NULL;
}

bsfctl_pipeline_t *bsfctl_pipeline_start(bsf_store_t *dst, uint64_t commit_every,
                                         const bsfctl_pipeline_hooks_t *hooks, char *err,
                                         size_t cap)
{
    bsfctl_pipeline_t *pl = calloc(1, sizeof *pl);
    if (!pl) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    pl->dst = dst;
    pl->commit_every = commit_every ? commit_every : 1;
    pl->hooks = *hooks;
    size_t zones = 0;
    for (; zones < BATCHES; zones++) {
        if (!msgpack_zone_init(&pl->batches[zones].zone, 256u << 10))
            break;
        pl->batches[zones].next = pl->free_list;
        pl->free_list = &pl->batches[zones];
    }
    int rc = zones < BATCHES ? -1 : pthread_mutex_init(&pl->mu, NULL);
    if (!rc && (rc = pthread_cond_init(&pl->cv, NULL)))
        pthread_mutex_destroy(&pl->mu);
    if (!rc && (rc = pthread_create(&pl->writer, NULL, writer_main, pl))) {
        pthread_cond_destroy(&pl->cv);
        pthread_mutex_destroy(&pl->mu);
    }
    if (rc) {
        for (size_t i = 0; i < zones; i++)
            msgpack_zone_destroy(&pl->batches[i].zone);
        free(pl);
        snprintf(err, cap, "cannot start the writer thread");
        return NULL;
    }
    return pl;
}

/* Hands the reader's batch to the writer. */
static void submit(bsfctl_pipeline_t *pl)
{
    batch_t *b = pl->filling;
    pl->filling = NULL;
    if (!b)
        return;
    b->next = NULL;
    pthread_mutex_lock(&pl->mu);
    BSF_FIFO_APPEND(pl->full_head, pl->full_tail, b, next);
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
}

bsfctl_item_t *bsfctl_pipeline_next(bsfctl_pipeline_t *pl, msgpack_zone **zone)
{
    if (!pl->filling) {
        pthread_mutex_lock(&pl->mu);
        while (!pl->free_list && !pl->err)
            pthread_cond_wait(&pl->cv, &pl->mu);
        if (!pl->err) {
            pl->filling = pl->free_list;
            pl->free_list = pl->filling->next;
        }
        int failed = pl->err;
        pthread_mutex_unlock(&pl->mu);
        if (failed)
            return NULL;
    }
    bsfctl_item_t *it = &pl->filling->items[pl->filling->n];
    memset(it, 0, sizeof *it);
    *zone = &pl->filling->zone;
    return it;
}

void bsfctl_pipeline_push(bsfctl_pipeline_t *pl)
{
    if (++pl->filling->n == BATCH_ITEMS)
        submit(pl);
}

int bsfctl_pipeline_finish(bsfctl_pipeline_t *pl)
{
    if (pl->filling && pl->filling->n)
        submit(pl);
    else if (pl->filling)
        give_back(pl, pl->filling, 0);
    pl->filling = NULL;
    pthread_mutex_lock(&pl->mu);
    pl->stopping = true;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    pthread_join(pl->writer, NULL);
    int err = pl->err;
    for (size_t i = 0; i < BATCHES; i++)
        msgpack_zone_destroy(&pl->batches[i].zone);
    pthread_cond_destroy(&pl->cv);
    pthread_mutex_destroy(&pl->mu);
    free(pl);
    return err;
}
