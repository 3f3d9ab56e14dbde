/* The store (engine/store.c) on a real LMDB file: the free space it reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/store.h"
#include "projections/counters.h"
#include "tests/unit/history_fixtures.h"

/* The free space a store reports: the map past its file, and pages freed by earlier
 * transactions once the free list is counted. */
static void space_counts_the_free_list(void **state)
{
    (void)state;
    bsf_store_t s;
    char dir[64];
    hf_store_open(&s, dir, 4);
    bsf_store_space_t before, after, quick;
    assert_int_equal(bsf_store_space(&s, UINT64_MAX, &before), 0);
    assert_int_equal(before.map, 4u << 20);
    assert_true(before.beyond <= before.map && before.total >= before.beyond);
    /* the filesystem is measured; the store can reach at most its map */
    assert_true(before.fs_free != UINT64_MAX && before.fs_free > 0);
    assert_true(before.limit <= before.map);
    assert_true(before.beyond <= before.fs_free + bsf_store_file_bytes(&s));
    /* 200 KB written, then deleted in a later transaction: the file keeps its size, its pages
     * go to the free list */
    MDB_txn *txn;
    char value[1024] = {0};
    for (int round = 0; round < 2; round++) {
        assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
        for (unsigned i = 0; i < 200; i++) {
            char key[32];
            snprintf(key, sizeof key, "space-test/%u", i);
            memcpy(value, &i, sizeof i);
            MDB_val k = {strlen(key), key}, v = {sizeof value, value};
            int rc = round ? mdb_del(txn, s.meta, &k, NULL) : mdb_put(txn, s.meta, &k, &v, 0);
            assert_int_equal(rc, 0);
        }
        assert_int_equal(mdb_txn_commit(txn), 0);
    }
    assert_int_equal(bsf_store_space(&s, UINT64_MAX, &after), 0);
    assert_true(after.beyond + 200 * 1024 <= before.beyond);
    assert_true(after.total >= after.beyond + 200 * 1024);
    assert_true(after.total <= before.total);
    /* below the scan threshold only the map past the file is counted */
    assert_int_equal(bsf_store_space(&s, 0, &quick), 0);
    assert_int_equal(quick.total, quick.beyond);
    assert_int_equal(quick.beyond, after.beyond);
    hf_store_close(&s, dir);
}

typedef struct {
    size_t n;
    size_t len[2];
    char data[2][600];
} seen_t;

static int remember(void *ctx, uint64_t position, const void *event, size_t len)
{
    seen_t *s = ctx;
    (void)position;
    if (s->n < 2 && len <= sizeof s->data[0]) {
        memcpy(s->data[s->n], event, len);
        s->len[s->n] = len;
    }
    s->n++;
    return 0;
}

/* Events up to BSF_LOG_PLAIN_MAX bytes are stored as they are, larger ones behind the 0xc1
 * tag compressed; a scan gives both back as written. */
static void small_events_are_stored_plain(void **state)
{
    (void)state;
    bsf_store_t s;
    char dir[64];
    hf_store_open(&s, dir, 4);
    /* two msgpack maps: one string member of 100 bytes, one of 500 */
    char small[110], big[510];
    size_t lens[2] = {100, 500};
    char *ev[2] = {small, big};
    for (int i = 0; i < 2; i++) {
        char *p = ev[i];
        p[0] = (char)0x81, p[1] = (char)0xa1, p[2] = 'x', p[3] = (char)0xda;
        p[4] = (char)(lens[i] >> 8), p[5] = (char)lens[i];
        memset(p + 6, 'a' + i, lens[i]);
    }
    msgpack_sbuffer tmp;
    msgpack_sbuffer_init(&tmp);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(bsf_embedded_log_append(&s.log, txn, ev[i], lens[i] + 6, i ? &tmp : NULL,
                                                 NULL), 0);
    uint8_t key[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    MDB_val k = {8, key}, v;
    assert_int_equal(mdb_get(txn, s.log.dbi, &k, &v), 0);
    assert_int_equal(v.mv_size, 106);
    assert_memory_equal(v.mv_data, small, 106);
    key[7] = 2;
    assert_int_equal(mdb_get(txn, s.log.dbi, &k, &v), 0);
    assert_int_equal(((const uint8_t *)v.mv_data)[0], 0xc1);
    assert_true(v.mv_size < 506);
    seen_t seen = {0};
    assert_int_equal(bsf_embedded_log_scan(&s.log, txn, 1, remember, &seen), 0);
    assert_int_equal(seen.n, 2);
    assert_int_equal(seen.len[0], 106);
    assert_memory_equal(seen.data[0], small, 106);
    assert_int_equal(seen.len[1], 506);
    assert_memory_equal(seen.data[1], big, 506);
    mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&tmp);
    hf_store_close(&s, dir);
}

static int stored(MDB_txn *txn, MDB_dbi dbi, const char *name)
{
    MDB_val k = {strlen(name), (void *)name}, v;
    return mdb_get(txn, dbi, &k, &v);
}

/* Deferred counters: a -1 and a +1 in one transaction write nothing; reads in the
 * transaction see the deltas; the flush writes each counter once; discard forgets. */
static void counters_wait_for_the_flush(void **state)
{
    (void)state;
    bsf_store_t s;
    char dir[64];
    hf_store_open(&s, dir, 4);
    MDB_dbi c = s.proj.counters;
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    assert_int_equal(bsf_counter_add(txn, c, "total", 5), 0);
    bsf_counters_defer(txn, c);
    assert_int_equal(bsf_counter_add(txn, c, "total", -1), 0);
    assert_int_equal(bsf_counter_add(txn, c, "total", 1), 0);
    assert_int_equal(bsf_counter_add(txn, c, "dnn/x", 1), 0);
    assert_int_equal(bsf_counter_add(txn, c, "len6/064", 1), 0);
    assert_int_equal(stored(txn, c, "dnn/x"), MDB_NOTFOUND); /* not written yet */
    assert_int_equal(bsf_counter_get(txn, c, "dnn/x"), 1);
    assert_int_equal(bsf_counter_get(txn, c, "total"), 5);
    uint8_t bitmap[17];
    assert_int_equal(bsf_counters_prefix_lengths(txn, c, "len6", 128, bitmap), 0);
    assert_true(bitmap[8] & 1u); /* 64 */
    for (int i = 0; i < 70; i++) { /* more than it keeps: written early, still right */
        char name[32];
        snprintf(name, sizeof name, "pcf/p%d", i);
        assert_int_equal(bsf_counter_add(txn, c, name, 2), 0);
    }
    assert_int_equal(bsf_counter_add(txn, c, "pcf/p3", -2), 0);
    assert_int_equal(bsf_counters_flush(txn), 0);
    assert_int_equal(bsf_counter_get(txn, c, "dnn/x"), 1);
    assert_int_equal(bsf_counter_get(txn, c, "total"), 5);
    assert_int_equal(bsf_counter_get(txn, c, "pcf/p69"), 2);
    assert_int_equal(stored(txn, c, "pcf/p3"), MDB_NOTFOUND); /* at zero: deleted */
    /* after the flush: straight to the store */
    assert_int_equal(bsf_counter_add(txn, c, "dnn/y", 1), 0);
    assert_int_equal(stored(txn, c, "dnn/y"), 0);
    bsf_counters_defer(txn, c);
    assert_int_equal(bsf_counter_add(txn, c, "dnn/z", 1), 0);
    bsf_counters_discard();
    assert_int_equal(bsf_counters_flush(txn), 0);
    assert_int_equal(bsf_counter_get(txn, c, "dnn/z"), 0);
    mdb_txn_abort(txn);
    hf_store_close(&s, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(space_counts_the_free_list),
        cmocka_unit_test(small_events_are_stored_plain),
        cmocka_unit_test(counters_wait_for_the_flush),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
