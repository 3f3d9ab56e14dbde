/* common/time_text: RFC 3339 text of a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "common/time_text.h"

static void rfc3339_text(void **state)
{
    (void)state;
    char out[32];
    bsf_time_format_rfc3339(1564908577845LL, out);
    assert_string_equal(out, "2019-08-04T08:49:37.845Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc3339_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
