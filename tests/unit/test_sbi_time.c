/* core/sbi_time: TS 29.500 header timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/sbi_time.h"

static void sbi_timestamps(void **state)
{
    (void)state;
    const char *t = "Sun, 04 Aug 2019 08:49:37.845 GMT";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577845LL);
    t = "Sun, 04 Aug 2019 08:49:37 GMT";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577000LL);
    t = "Sun, 04 Aug 2019 14:19:37.845 IST";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577845LL);
    const char *bad[] = {"2019-08-04T08:49:37Z", "Sun, 04 Aug 2019 08:49:37.845 CET",
                         "Sun, 04 Xyz 2019 08:49:37.845 GMT", "Sun, 04 Aug 2019 25:49:37.845 GMT",
                         "Sun, 04 Aug 2019 08:49:37.8 GMT", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_sbi_time_parse(bad[i], strlen(bad[i])), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sbi_timestamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
