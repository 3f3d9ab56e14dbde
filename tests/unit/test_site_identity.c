/* engine/site_identity on a real store: a new store adopts site.id and keeps it; the same id
 * passes, another is refused (naming site.id and both values); an invalid kept value is an
 * error, not a pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/ext_meta.h"
#include "engine/site_identity.h"
#include "engine/store.h"
#include "tests/unit/test_util.h"

static void open_store(bsf_store_t *s, char *dir, bool read_only)
{
    char err[256];
    bsf_store_options_t so = {dir, 64, read_only, 16, 0};
    assert_int_equal(bsf_store_open(s, &so, err, sizeof err), 0);
}

static unsigned kept(bsf_store_t *s, int *rc)
{
    MDB_txn *txn;
    unsigned site = 0;
    assert_int_equal(mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn), 0);
    *rc = bsf_site_identity_read(s, txn, &site);
    mdb_txn_abort(txn);
    return site;
}

static void test_adopt_match_refuse(void **state)
{
    (void)state;
    char dir[] = "/tmp/bsf-site-id-XXXXXX", err[256];
    assert_non_null(mkdtemp(dir));
    bsf_store_t s;
    open_store(&s, dir, false);
    int rc;
    kept(&s, &rc);
    assert_int_equal(rc, 1); /* a new store keeps none */
    assert_int_equal(bsf_site_identity_check(&s, 4, err, sizeof err), 0);
    assert_int_equal(kept(&s, &rc), 4);
    assert_int_equal(rc, 0);
    assert_int_equal(bsf_site_identity_check(&s, 4, err, sizeof err), 0);
    assert_int_equal(bsf_site_identity_check(&s, 5, err, sizeof err), 1);
    assert_non_null(strstr(err, "site.id is 5"));
    assert_non_null(strstr(err, "belongs to site 4"));
    assert_int_equal(kept(&s, &rc), 4); /* a refusal does not rewrite it */
    bsf_store_close(&s);

    open_store(&s, dir, false); /* kept across a reopen */
    assert_int_equal(bsf_site_identity_check(&s, 5, err, sizeof err), 1);
    assert_int_equal(bsf_ext_meta_put_string(&s, BSF_SITE_ID_META, "70000", err, sizeof err), 0);
    assert_int_equal(bsf_site_identity_check(&s, 5, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid site id"));
    kept(&s, &rc);
    assert_int_equal(rc, MDB_CORRUPTED);
    bsf_store_close(&s);
    assert_int_equal(tu_dir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_adopt_match_refuse)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
