/* engine/memory_limit (the cgroup limits read, v2 and v1, on fixture files) and
 * engine/warmup on a real store: it finds LMDB's map without MDB_FIXEDMAP and starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "engine/memory_limit.h"
#include "engine/store.h"
#include "engine/warmup.h"
#include "tests/unit/test_util.h"

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_cgroup_limits(void **state)
{
    (void)state;
    char root[] = "/tmp/bsf-memlim-XXXXXX", p[512], cg[600];
    assert_non_null(mkdtemp(root));
    snprintf(cg, sizeof cg, "%s/cgroup", root);
    snprintf(p, sizeof p, "%s/a", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/a/memory.max", root);
    put_file(p, "1048576\n");
    put_file(cg, "0::/a\n");
    assert_int_equal(bsf_memory_limit_cgroup(cg, root), 1048576); /* v2 */
    put_file(p, "max\n");
    assert_int_equal(bsf_memory_limit_cgroup(cg, root), SIZE_MAX); /* v2, no limit */
    snprintf(p, sizeof p, "%s/memory", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/memory/b", root);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/memory/b/memory.limit_in_bytes", root);
    put_file(p, "7516192768\n");
    put_file(cg, "9:name=systemd:/\n4:memory:/b\n0::/a\n");
    assert_int_equal(bsf_memory_limit_cgroup(cg, root), 7516192768ull); /* v1, hybrid */
    put_file(cg, "5:cpu,memory:/nowhere\n");
    assert_int_equal(bsf_memory_limit_cgroup(cg, root), SIZE_MAX); /* unreadable: none */
    assert_int_equal(bsf_memory_limit_cgroup("/nonexistent/cgroup", root), SIZE_MAX);
    size_t m = bsf_memory_limit();
    assert_true(m > (64u << 20)); /* at least this test machine's RAM or limit */
    assert_int_equal(tu_dir_remove(root), 0);
}

static void test_warmup_finds_the_map(void **state)
{
    (void)state;
    char dir[] = "/tmp/bsf-warmup-XXXXXX", err[256];
    assert_non_null(mkdtemp(dir));
    bsf_store_t s;
    bsf_store_options_t so = {dir, 64, false, 16, 0};
    assert_int_equal(bsf_store_open(&s, &so, err, sizeof err), 0);
    MDB_txn *txn;
    static char value[8000];
    memset(value, 'x', sizeof value);
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    for (int i = 0; i < 400; i++) { /* ~3 MB: past the 1 MiB below which nothing is done */
        char name[32];
        snprintf(name, sizeof name, "fill-%d", i);
        assert_int_equal(bsf_store_put_meta(&s, txn, name, value, sizeof value), 0);
    }
    assert_int_equal(mdb_txn_commit(txn), 0);
    bsf_warmup_t *w = bsf_warmup_start(&s);
    assert_non_null(w); /* was NULL: mdb_env_info has no map address without MDB_FIXEDMAP */
    bsf_warmup_stop(w);
    bsf_store_close(&s);
    assert_int_equal(tu_dir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cgroup_limits),
        cmocka_unit_test(test_warmup_finds_the_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
