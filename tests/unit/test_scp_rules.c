/* gateways/sbi/scp_rules.c: SCP verdicts on answers (which SCP to mark, whether to reselect). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gateways/sbi/scp_rules.h"

static void scp_verdicts(void **state)
{
    (void)state;
    assert_true(bsf_scp_server_names_scp("scp1.example.org", "scp1.example.org"));
    assert_true(bsf_scp_server_names_scp("SCP-1234 scp1.example.org", "other"));
    assert_true(bsf_scp_server_names_scp("x SCP1.EXAMPLE.ORG", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp("PCF-1234 pcf1.example.org", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp("scp1.example.org.evil", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp(NULL, "scp1"));
    assert_false(bsf_scp_server_names_scp("", "scp1"));
    assert_int_equal(bsf_scp_verdict(503, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(429, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(500, "SYSTEM_FAILURE", true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(504, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(504, "TARGET_NF_NOT_REACHABLE", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(500, "NF_FAILOVER", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(500, "NF_SERVICE_FAILOVER", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(400, NULL, true), BSF_SCP_RESELECT);
    assert_int_equal(bsf_scp_verdict(503, NULL, false), BSF_SCP_FINE); /* the target's */
    assert_int_equal(bsf_scp_verdict(200, NULL, true), BSF_SCP_FINE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scp_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
