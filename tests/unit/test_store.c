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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(space_counts_the_free_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
