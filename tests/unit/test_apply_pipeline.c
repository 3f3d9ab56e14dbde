/* bsfctl's apply pipeline (bsfctl/apply_pipeline.c, used by replay and rebuild): it writes
 * in order, commits every N items, gives the store a direct apply gives, and stops the reader
 * when the store is full, leaving what it committed whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bsfctl/apply_pipeline.h"
#include "tests/unit/history_fixtures.h"

typedef struct {
    uint64_t written, commits, last_position;
    bool in_order;
} pipeline_seen_t;

static void seen_written(void *ctx, const bsfctl_item_t *it)
{
    pipeline_seen_t *seen = ctx;
    seen->in_order = seen->in_order && it->position == seen->last_position + 1;
    seen->last_position = it->position;
    seen->written++;
}

static int seen_commit(void *ctx, MDB_txn *txn)
{
    (void)txn;
    ((pipeline_seen_t *)ctx)->commits++;
    return 0;
}

/* A new store of `map_mb` MB (its directory into `dir`, 64 bytes) and a pipeline on it that
 * commits every `commit_every` items, reporting into *seen (reset). */
static bsfctl_pipeline_t *start(bsf_store_t *s, char *dir, size_t map_mb, uint64_t commit_every,
                                pipeline_seen_t *seen)
{
    char err[256];
    hf_store_open(s, dir, map_mb);
    *seen = (pipeline_seen_t){.in_order = true};
    bsfctl_pipeline_hooks_t hooks = {seen, seen_written, seen_commit};
    bsfctl_pipeline_t *pl = bsfctl_pipeline_start(s, commit_every, &hooks, err, sizeof err);
    if (!pl)
        fail_msg("%s", err);
    return pl;
}

/* Pushes the history `rounds` times (positions from 1); stops when the writer fails.
 * Returns the number of items pushed. */
static uint64_t push_history(hf_history_t *f, bsfctl_pipeline_t *pl, int rounds)
{
    msgpack_sbuffer raw, tmp;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    uint64_t pushed = 0;
    char err[256];
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < f->n; i++) {
            msgpack_zone *zone;
            bsfctl_item_t *it = bsfctl_pipeline_next(pl, &zone);
            if (!it)
                goto out;
            hf_encode_event(f, i, &raw);
            if (bsf_prepared_event_make(raw.data, raw.size, NULL, 0, false, zone, &tmp, &it->pe, err,
                                        sizeof err))
                fail_msg("event %zu: %s", i, err);
            it->has_event = true;
            it->position = ++pushed;
            bsfctl_pipeline_push(pl);
        }
out:
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    return pushed;
}

static void pipeline_writes_in_order_and_commits(void **state)
{
    hf_history_t *f = *state;
    uint8_t reference[32], digest[32];
    hf_reference_digest(f, reference);
    bsf_store_t s;
    char dir[64];
    pipeline_seen_t seen;
    bsfctl_pipeline_t *pl = start(&s, dir, 64, 7, &seen);
    /* 25 rounds: several batches of the pipeline; the same events again change nothing */
    uint64_t pushed = push_history(f, pl, 25);
    assert_int_equal(pushed, 25 * f->n);
    assert_int_equal(bsfctl_pipeline_finish(pl), 0);
    assert_int_equal(seen.written, pushed);
    assert_true(seen.in_order);
    assert_int_equal(seen.commits, pushed / 7 + 1); /* every 7 items, and the last */
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    mdb_txn_abort(txn);
    assert_memory_equal(digest, reference, 32);
    assert_int_equal(s.log.last, pushed);
    hf_store_close(&s, dir);
}

static void pipeline_stops_when_the_store_is_full(void **state)
{
    hf_history_t *f = *state;
    bsf_store_t s;
    char dir[64];
    pipeline_seen_t seen;
    bsfctl_pipeline_t *pl = start(&s, dir, 1, 1000, &seen);
    /* far more log than 1 MB holds: the reader is told to stop instead of waiting */
    uint64_t pushed = push_history(f, pl, 2000);
    assert_true(pushed < 2000 * f->n);
    assert_int_equal(bsfctl_pipeline_finish(pl), MDB_MAP_FULL);
    /* what was committed before the failure is whole: log and projections agree */
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    uint64_t events = 0, first = 0;
    assert_int_equal(bsf_embedded_log_stat(&s.log, txn, &events, &first), 0);
    mdb_txn_abort(txn);
    assert_int_equal(events % 1000, 0);
    assert_true(seen.commits == events / 1000);
    hf_store_close(&s, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pipeline_writes_in_order_and_commits, hf_setup,
                                        hf_teardown),
        cmocka_unit_test_setup_teardown(pipeline_stops_when_the_store_is_full, hf_setup,
                                        hf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
