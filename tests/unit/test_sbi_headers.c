/* gateways/sbi/sbi_headers.c: header values (Date, User-Agent, 3gpp-Sbi-Message-Priority,
 * header injection). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/sbi_time.h"
#include "gateways/sbi/sbi_headers.h"

static void header_values(void **state)
{
    (void)state;
    char ts[BSF_SBI_TIME_HEADER_MAX];
    /* 2019-08-04T08:49:37.845Z, the TS 29.500 example */
    size_t n = bsf_sbi_time_format_header(1564908577845, ts);
    assert_int_equal(n, strlen("Sun, 04 Aug 2019 08:49:37.845 GMT"));
    assert_string_equal(ts, "Sun, 04 Aug 2019 08:49:37.845 GMT");
    assert_int_equal(bsf_sbi_time_parse(ts, n), 1564908577845);
    assert_int_equal(bsf_sbi_time_format_header(-1, ts), 0);
    /* the Date of answers: IMF-fixdate without milliseconds */
    assert_int_equal(bsf_sbi_http_date(1564908577, ts), 29);
    assert_string_equal(ts, "Sun, 04 Aug 2019 08:49:37 GMT");
    assert_int_equal(bsf_sbi_http_date(0, ts), 29);
    assert_string_equal(ts, "Thu, 01 Jan 1970 00:00:00 GMT");
    assert_int_equal(bsf_sbi_http_date(-1, ts), 0);
    assert_int_equal(bsf_sbi_http_date(253402300800, ts), 0); /* year 10000 */
    char ua[64];
    assert_true(bsf_sbi_user_agent("54804518-4191-46b3-955c-ac631f953ed8", NULL, ua, sizeof ua));
    assert_string_equal(ua, "BSF-54804518-4191-46b3-955c-ac631f953ed8");
    assert_true(bsf_sbi_user_agent("id", "bsf1.example", ua, sizeof ua));
    assert_string_equal(ua, "BSF-id bsf1.example");
    assert_int_equal(bsf_sbi_user_agent("id", "bsf1.example", ua, 8), 0);
    assert_true(bsf_sbi_priority_valid(0) && bsf_sbi_priority_valid(31));
    assert_false(bsf_sbi_priority_valid(32) || bsf_sbi_priority_valid(-1));
    assert_true(bsf_sbi_header_value_valid("imsi-345012123123123; msisdn-1", 100));
    assert_false(bsf_sbi_header_value_valid("a\r\nx-injected: 1", 100));
    assert_false(bsf_sbi_header_value_valid("abcdef", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
