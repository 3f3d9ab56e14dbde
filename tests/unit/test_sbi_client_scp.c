/* gateways/sbi/sbi_client_scp.c: the SCP table (pick, mark, probe). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gateways/sbi/sbi_client_scp.h"

static void scp_table(void **state)
{
    (void)state;
    bsf_scp_table_t t;
    char err[128];
    assert_int_equal(bsf_scp_table_init(&t, "http://scp1:80\nhttp://scp2:80/prefix", 1000, 2, 1,
                                        err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.scps[1].parsed.path, "/prefix");
    assert_int_equal(bsf_scp_table_pick(&t, 0, 0), 0);
    bsf_scp_table_mark(&t, 0, 0);
    assert_int_equal(bsf_scp_table_pick(&t, 10, 0), 1);     /* available ones first */
    assert_int_equal(bsf_scp_table_pick(&t, 10, 2u), 0);    /* else one not tried */
    assert_int_equal(bsf_scp_table_pick(&t, 10, 3u), -1);
    assert_int_equal(bsf_scp_table_pick(&t, 1000, 0), 0);   /* the time is over */
    bsf_scp_table_mark(&t, 0, 0);
    bsf_scp_table_fine(&t, 0);                              /* a success ends it early */
    assert_true(bsf_scp_table_available(&t, 0, 10));
    bsf_scp_table_probe(&t, 1, false);
    assert_true(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_probe(&t, 1, false);                      /* 2 failures in a row */
    assert_false(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_probe(&t, 1, true);
    assert_true(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_destroy(&t);
    assert_int_equal(bsf_scp_table_init(&t, "scp1:80", 1000, 2, 1, err, sizeof err), -1);
    bsf_scp_table_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scp_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
