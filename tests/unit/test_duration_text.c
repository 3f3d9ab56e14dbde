/* common/duration_text: units, combinations, refusals, overflow, and the format's round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/duration_text.h"

static uint64_t ms_of(const char *s)
{
    uint64_t ms = 12345;
    int rc = bsf_duration_parse(s, &ms);
    if (rc)
        fail_msg("'%s' refused (%d)", s, rc);
    return ms;
}

static void test_units(void **state)
{
    (void)state;
    assert_int_equal(ms_of("0"), 0);
    assert_int_equal(ms_of("250ms"), 250);
    assert_int_equal(ms_of("30s"), 30000);
    assert_int_equal(ms_of("5m"), 300000);
    assert_int_equal(ms_of("12h"), 12ull * 3600000);
    assert_int_equal(ms_of("7d"), 7ull * 86400000);
    assert_int_equal(ms_of("0s"), 0);
    assert_int_equal(ms_of("1h30m"), 90ull * 60000);
    assert_int_equal(ms_of("1d2h3m4s5ms"), 86400000ull + 2 * 3600000 + 3 * 60000 + 4005);
}

static void test_refusals(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "30", "s", "-5s", "+5s", " 5s", "5s ", "5 s", "5S",
                                      "5sec", "5w", "1.5h", "5m1h", "1s1s", "5ms5s", "0x10s",
                                      "5s-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ms = 777;
        if (bsf_duration_parse(bad[i], &ms) != -EINVAL)
            fail_msg("'%s' accepted", bad[i]);
        assert_int_equal(ms, 777); /* unchanged */
    }
    uint64_t ms = 777;
    assert_int_equal(bsf_duration_parse("18446744073709551615ms", &ms), 0);
    assert_int_equal(ms, UINT64_MAX);
    assert_int_equal(bsf_duration_parse("18446744073709551616ms", &ms), -ERANGE);
    assert_int_equal(bsf_duration_parse("213503982335d", &ms), -ERANGE);
    assert_int_equal(bsf_duration_parse("213503982334d1d", &ms), -EINVAL);
    assert_int_equal(bsf_duration_parse("213503982334d23h59m59s999ms", &ms), -ERANGE);
}

static void test_format_round_trip(void **state)
{
    (void)state;
    char buf[BSF_DURATION_TEXT_MAX];
    assert_string_equal(bsf_duration_format(0, buf), "0");
    assert_string_equal(bsf_duration_format(7ull * 86400000, buf), "7d");
    assert_string_equal(bsf_duration_format(90ull * 60000, buf), "90m");
    assert_string_equal(bsf_duration_format(1500, buf), "1500ms");
    assert_string_equal(bsf_duration_format(UINT64_MAX, buf), "18446744073709551615ms");
    static const uint64_t v[] = {1, 999, 1000, 61000, 3600000, 86400000, 123456789};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_int_equal(ms_of(bsf_duration_format(v[i], buf)), v[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_format_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
