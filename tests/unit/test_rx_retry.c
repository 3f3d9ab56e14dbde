/* gateways/diameter/rx_retry: result-code patterns, originators, retry decisions and the
 * next peer (seed 3.15). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_retry.h"

static void code_patterns(void **state)
{
    (void)state;
    bsf_rx_code_pattern_t p;
    char err[128];
    assert_int_equal(bsf_rx_code_pattern_parse("5***", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 5012));
    assert_true(bsf_rx_code_pattern_match(&p, 5999));
    assert_false(bsf_rx_code_pattern_match(&p, 4012));
    assert_false(bsf_rx_code_pattern_match(&p, 0));
    assert_int_equal(bsf_rx_code_pattern_parse("3002", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 3002));
    assert_false(bsf_rx_code_pattern_match(&p, 3003));
    assert_int_equal(bsf_rx_code_pattern_parse("50*2", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 5012));
    assert_false(bsf_rx_code_pattern_match(&p, 5013));
    /* never a success code, never a malformed pattern */
    const char *bad[] = {"2001", "2***", "****", "*001", "500", "50012", "5a**", "", "0***"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_code_pattern_parse(bad[i], false, &p, err, sizeof err), -1);
    /* a set of them, as the configuration holds it */
    bsf_rx_code_set_t set;
    assert_int_equal(bsf_rx_code_set_parse("3002\n5***", false, &set, err, sizeof err), 0);
    assert_int_equal(set.n, 2);
    assert_true(bsf_rx_code_set_match(&set, 3002));
    assert_true(bsf_rx_code_set_match(&set, 5065));
    assert_false(bsf_rx_code_set_match(&set, 3004));
    assert_false(bsf_rx_code_set_match(&set, 2001));
    assert_int_equal(bsf_rx_code_set_parse("5***\n2001", false, &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "2001"));
    assert_int_equal(bsf_rx_code_set_parse("", false, &set, err, sizeof err), 0);
    assert_int_equal(set.n, 0);
}

static void originator(void **state)
{
    (void)state;
    assert_int_equal(bsf_rx_retry_originator("pcf1", "pcf1", false), BSF_RX_ORIGINATOR_DESTINATION);
    assert_int_equal(bsf_rx_retry_originator("pcf1", "PCF1", true), BSF_RX_ORIGINATOR_DESTINATION);
    assert_int_equal(bsf_rx_retry_originator("pcf1", "dra1", true), BSF_RX_ORIGINATOR_INTERMEDIATE);
    assert_int_equal(bsf_rx_retry_originator("", "pcf1", true), BSF_RX_ORIGINATOR_INTERMEDIATE);
    assert_int_equal(bsf_rx_retry_originator(NULL, "pcf1", false), BSF_RX_ORIGINATOR_DESTINATION);
}

static bsf_rx_code_set_t codes_5xxx(void)
{
    bsf_rx_code_set_t set;
    char err[64];
    assert_int_equal(bsf_rx_code_set_parse("5***\n3002", false, &set, err, sizeof err), 0);
    return set;
}

static void retry_wanted(void **state)
{
    (void)state;
    bsf_rx_code_set_t set = codes_5xxx();
    bsf_rx_retry_policy_t p = {true, &set, true, 1, false, BSF_RX_ORIGINATOR_ANY};
    bsf_rx_outcome_t o = {false, 5012, BSF_RX_ORIGINATOR_DESTINATION};
    assert_true(bsf_rx_retry_wanted(&p, &o));
    o.code = 2001;
    assert_false(bsf_rx_retry_wanted(&p, &o)); /* success: never */
    o.code = 4001;
    assert_false(bsf_rx_retry_wanted(&p, &o)); /* not configured */
    o.timeout = true;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    p.on_timeout = false;
    assert_false(bsf_rx_retry_wanted(&p, &o));
    /* originator filter: timeouts are not filtered, answers are */
    p.on_timeout = true;
    p.originator = BSF_RX_ORIGINATOR_DESTINATION;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    o.timeout = false;
    o.code = 3002;
    o.originator = BSF_RX_ORIGINATOR_INTERMEDIATE;
    assert_false(bsf_rx_retry_wanted(&p, &o));
    p.originator = BSF_RX_ORIGINATOR_INTERMEDIATE;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    p.enabled = false;
    assert_false(bsf_rx_retry_wanted(&p, &o));
}

static void retry_next_peer(void **state)
{
    (void)state;
    bsf_rx_code_set_t set = codes_5xxx();
    bsf_rx_retry_policy_t p = {true, &set, true, 2, false, BSF_RX_ORIGINATOR_ANY};
    bool tried[3] = {true, false, false};
    /* seed 3.15 test 3: MaxRetry 2, no cycle back, 2 peers -> exactly 2 attempts */
    assert_int_equal(bsf_rx_retry_next(&p, 0, 2, tried, 0), 1);
    tried[1] = true;
    assert_int_equal(bsf_rx_retry_next(&p, 1, 2, tried, 1), -1);
    /* cycle back: the third attempt goes to the first peer again */
    p.cycle_back = true;
    assert_int_equal(bsf_rx_retry_next(&p, 1, 2, tried, 1), 0);
    assert_int_equal(bsf_rx_retry_next(&p, 2, 2, tried, 0), -1); /* max reached */
    /* no alternate peer (no routing table): no retry, even with cycle back */
    bool one[1] = {true};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 1, one, 0), -1);
    /* MaxRetryCount 0 is read as 1 */
    p.max_retries = 0;
    bool t3[3] = {true, false, false};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 3, t3, 0), 1);
    assert_int_equal(bsf_rx_retry_next(&p, 1, 3, t3, 1), -1);
    /* untried peers come in order of preference */
    p.max_retries = 5;
    bool t4[3] = {false, true, false};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 3, t4, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(code_patterns),
        cmocka_unit_test(originator),
        cmocka_unit_test(retry_wanted),
        cmocka_unit_test(retry_next_peer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
