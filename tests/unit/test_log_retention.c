/* engine/log_retention: the trim rule, and rounds on a real store: what is past the retention
 * and shipped is archived, then deleted by the engine; the last event stays; archive + live
 * log give every position once (log/log_history). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/log_retention.h"
#include "engine/store.h"
#include "core/hlc.h"
#include "log/log_history.h"
#include "tests/unit/test_util.h"

static void test_trim_rule(void **state)
{
    (void)state;
    /* position, event time, now, retention, limit, last */
    assert_true(bsf_log_trim_due(1, 1000, 10000, 5000, UINT64_MAX, 9));
    assert_false(bsf_log_trim_due(1, 5000, 10000, 5000, UINT64_MAX, 9)); /* exactly the age */
    assert_false(bsf_log_trim_due(1, 9000, 10000, 5000, UINT64_MAX, 9)); /* young */
    assert_false(bsf_log_trim_due(1, 1000, 10000, 0, UINT64_MAX, 9));    /* retention off */
    assert_false(bsf_log_trim_due(5, 1000, 10000, 5000, 4, 9));          /* not shipped */
    assert_true(bsf_log_trim_due(4, 1000, 10000, 5000, 4, 9));           /* shipped */
    assert_false(bsf_log_trim_due(9, 1000, 10000, 5000, UINT64_MAX, 9)); /* the last */
    assert_false(bsf_log_trim_due(1, 0, 1000, 5000, UINT64_MAX, 9));     /* now < retention */
    assert_true(bsf_log_trim_due(1, 0, 10000, 5000, UINT64_MAX, 9));     /* unreadable: time 0 */
}

typedef struct {
    char dir[64], archive[96];
    bsf_store_t store;
    bsf_engine_t *engine;
    uint64_t limit;
} fx_t;

static uint64_t limit_fn(void *ctx)
{
    return ((fx_t *)ctx)->limit;
}

/* Ten deregistration events at HLC times 1 s .. 10 s, positions 1..10. */
static void write_events(fx_t *f)
{
    MDB_txn *txn;
    msgpack_sbuffer buf, scratch;
    msgpack_sbuffer_init(&buf);
    msgpack_sbuffer_init(&scratch);
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, 0, &txn), 0);
    for (uint64_t i = 1; i <= 10; i++) {
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 1, .seq = i,
                          .hlc = BSF_HLC_FROM_MS(i * 1000), .reason = BSF_REASON_PCF_REQUEST};
        ev.binding_id.b[15] = (uint8_t)i;
        uint64_t pos;
        buf.size = scratch.size = 0;
        assert_int_equal(bsf_store_write_event(&f->store, txn, &ev, &buf, &scratch, &pos), 0);
        assert_int_equal(pos, i);
    }
    assert_int_equal(mdb_txn_commit(txn), 0);
    msgpack_sbuffer_destroy(&buf);
    msgpack_sbuffer_destroy(&scratch);
}

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/bsf-test-retention-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->archive, sizeof f->archive, "%s/archive", f->dir);
    tu_store_open(&f->store, f->dir, 64);
    write_events(f);
    bsf_engine_config_t ec = {.site_id = 1, .max_batch = 64, .queue_capacity = 64};
    tu_engine_start(&f->store, &ec, &f->engine);
    f->limit = UINT64_MAX;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    tu_engine_close(f->engine, &f->store, f->dir);
    free(f);
    return 0;
}

/* The engine deletes asynchronously: waits until `n` events in all have left. */
static void wait_trimmed(fx_t *f, uint64_t n)
{
    for (int i = 0; i < 400; i++) {
        bsf_engine_stats_t st;
        bsf_engine_stats(f->engine, &st);
        if (st.log_trimmed >= n) {
            assert_int_equal(st.log_trimmed, n);
            return;
        }
        usleep(10000);
    }
    fail_msg("the engine did not delete %llu events", (unsigned long long)n);
}

static uint64_t first_live(fx_t *f)
{
    MDB_txn *txn;
    uint64_t events, first;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_embedded_log_stat(&f->store.log, txn, &events, &first), 0);
    mdb_txn_abort(txn);
    return first;
}

typedef struct {
    uint64_t positions[32];
    size_t n;
    uint64_t with_stored; /* visits that had the stored form: the live log's only */
} seen_t;

static int note(void *ctx, uint64_t position, const void *event, size_t len,
                const void *stored, size_t stored_len)
{
    (void)event;
    (void)len;
    seen_t *s = ctx;
    if (stored && stored_len)
        s->with_stored++;
    if (s->n < 32)
        s->positions[s->n++] = position;
    return 0;
}

static void assert_whole_history(fx_t *f, const char *archive)
{
    MDB_txn *txn;
    seen_t seen = {0};
    bsf_log_history_stat_t st;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_log_history_scan(archive, &f->store.log, txn, note, &seen, &st), 0);
    mdb_txn_abort(txn);
    assert_int_equal(seen.n, 10);
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(seen.positions[i], i + 1);
    assert_int_equal(st.missing, 0);
    assert_int_equal(seen.with_stored, st.live);
}

static void test_rounds_archive_then_trim(void **state)
{
    fx_t *f = *state;
    char err[256];
    bsf_log_retention_t *r;
    bsf_log_retention_config_t cfg = {.retention_ms = 5000, .archive_dir = f->archive,
                                      .limit = limit_fn, .limit_ctx = f};
    f->limit = 7; /* shipped through position 7 */
    assert_int_equal(bsf_log_retention_create(&f->store, f->engine, &cfg, &r, err, sizeof err),
                     0);
    /* at 12 s: older than 7 s are positions 1..6 */
    assert_int_equal(bsf_log_retention_round(r, 12000), 6);
    wait_trimmed(f, 6);
    assert_int_equal(first_live(f), 7);
    bsf_log_retention_stats_t st;
    bsf_log_retention_stats(r, &st);
    assert_int_equal(st.archive.segments, 1);
    assert_int_equal(st.archive.first, 1);
    assert_int_equal(st.archive.last, 6);
    assert_true(st.archive.bytes > 0);
    /* much later: the shipped limit holds position 8 back */
    assert_int_equal(bsf_log_retention_round(r, 100000), 1);
    wait_trimmed(f, 7);
    f->limit = UINT64_MAX;
    /* 8 and 9; 10 is the last and stays */
    assert_int_equal(bsf_log_retention_round(r, 100000), 2);
    wait_trimmed(f, 9);
    assert_int_equal(first_live(f), 10);
    assert_int_equal(bsf_log_retention_round(r, 100000), 0);
    bsf_log_retention_stats(r, &st);
    assert_int_equal(st.oldest_position, 10);
    assert_int_equal(st.oldest_ms, 10000);
    assert_int_equal(st.archive.segments, 3);
    assert_int_equal(st.archive.last, 9);
    bsf_log_retention_destroy(r);
    assert_whole_history(f, f->archive);
}

/* Archives positions 1..4 (the first four events). */
static int add_first_four(void *ctx, uint64_t position, const void *event, size_t len)
{
    bsf_log_segment_t *seg = ctx;
    if (position > 4)
        return 1;
    return bsf_log_segment_add(seg, position, event, len);
}

/* A crash after a segment's write and before the deletion: the events are in both; the next
 * round deletes them without archiving them again, readers see each once. */
static void test_archived_but_not_deleted(void **state)
{
    fx_t *f = *state;
    char err[256];
    bsf_log_archive_stat_t ast;
    assert_int_equal(bsf_log_archive_open(f->archive, &ast, err, sizeof err), 0);
    bsf_log_segment_t seg;
    bsf_log_segment_init(&seg);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_embedded_log_scan(&f->store.log, txn, 1, add_first_four, &seg), 0);
    mdb_txn_abort(txn);
    assert_int_equal(bsf_log_segment_write(&seg, f->archive, &ast), 0);
    bsf_log_segment_free(&seg);
    /* and a half-written segment */
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s/log-00000000000000000005-00000000000000000009.zst.tmp",
             f->archive);
    FILE *t = fopen(tmp, "w");
    assert_non_null(t);
    fputs("partial", t);
    fclose(t);
    assert_whole_history(f, f->archive);

    bsf_log_retention_t *r;
    bsf_log_retention_config_t cfg = {.retention_ms = 1000, .archive_dir = f->archive};
    assert_int_equal(bsf_log_retention_create(&f->store, f->engine, &cfg, &r, err, sizeof err),
                     0);
    assert_int_equal(access(tmp, F_OK), -1); /* removed when the archive is opened */
    assert_int_equal(bsf_log_retention_round(r, 100000), 9); /* all but the last */
    wait_trimmed(f, 9);
    bsf_log_retention_stats_t st;
    bsf_log_retention_stats(r, &st);
    assert_int_equal(st.archive.segments, 2); /* 1..4 and 5..9: nothing archived twice */
    assert_int_equal(st.archive.last, 9);
    bsf_log_retention_destroy(r);
    assert_whole_history(f, f->archive);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trim_rule),
        cmocka_unit_test_setup_teardown(test_rounds_archive_then_trim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_archived_but_not_deleted, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
