/* gateways/sbi/sbi_retry.c: retry decisions and Retry-After. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gateways/sbi/sbi_retry.h"

static void retry_decisions(void **state)
{
    (void)state;
    const bsf_sbi_retry_profile_t *p = &bsf_sbi_retry_default;
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), 50);
    assert_int_equal(bsf_sbi_retry_decide(p, 2, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), 100);
    assert_int_equal(bsf_sbi_retry_decide(p, 3, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 404, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 200, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_TIMEOUT, 0, -1, 5000), 50);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_CONNECT_ERROR, 0, -1, 5000), 50);
    /* Retry-After longer than the back-off wins; beyond the deadline: no retry */
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, 2000, 5000), 2000);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, 6000, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 30), -1);
    bsf_sbi_retry_profile_t q = {.max_retries = 10, .n_statuses = 1, .statuses = {500},
                                 .backoff_initial_ms = 100, .backoff_max_ms = 350};
    assert_int_equal(bsf_sbi_retry_decide(&q, 3, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), 350);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_TIMEOUT, 0, -1, 9000), -1);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, 1000, 9000), 100);
    q.stop_on_retry_after = true;
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, 0, 9000), -1);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), 100);
    assert_int_equal(bsf_sbi_retry_decide(NULL, 1, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), -1);
}

static void retry_after(void **state)
{
    (void)state;
    assert_int_equal(bsf_sbi_retry_after_ms("120", 0), 120000);
    assert_int_equal(bsf_sbi_retry_after_ms("0", 0), 0);
    assert_int_equal(bsf_sbi_retry_after_ms("Sun, 04 Aug 2019 08:49:39 GMT", 1564908577000),
                     2000);
    assert_int_equal(bsf_sbi_retry_after_ms("Sun, 04 Aug 2019 08:49:39 GMT", 1564908590000), 0);
    assert_int_equal(bsf_sbi_retry_after_ms("soon", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms("-5", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms("99999999999", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms(NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retry_decisions),
        cmocka_unit_test(retry_after),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
