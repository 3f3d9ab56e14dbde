/* A failure's reason and code in one call (common/err_format.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/err_format.h"

static void writes_the_reason_and_returns_the_code(void **state)
{
    (void)state;
    char err[64] = "untouched";
    assert_int_equal(bsf_err_format(err, sizeof err, EINVAL, "bad %s %d", "item", 7), EINVAL);
    assert_string_equal(err, "bad item 7");
    assert_int_equal(bsf_err_format(err, sizeof err, -1, "%s", ""), -1);
    assert_string_equal(err, "");
}

static void truncates_to_the_buffer(void **state)
{
    (void)state;
    char err[6];
    assert_int_equal(bsf_err_format(err, sizeof err, 0, "%s", "far too long"), 0);
    assert_string_equal(err, "far t");
}

static void no_buffer_only_returns_the_code(void **state)
{
    (void)state;
    assert_int_equal(bsf_err_format(NULL, 64, ENOENT, "ignored %d", 1), ENOENT);
    char err[8] = "keep";
    assert_int_equal(bsf_err_format(err, 0, EEXIST, "ignored"), EEXIST);
    assert_string_equal(err, "keep");
}

static int forward(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bsf_err_vformat(err, cap, fmt, ap);
    va_end(ap);
    return 0;
}

static void a_va_list_is_formatted_the_same(void **state)
{
    (void)state;
    char err[32];
    forward(err, sizeof err, "%u/%u", 3u, 4u);
    assert_string_equal(err, "3/4");
    forward(NULL, sizeof err, "%u", 5u); /* no buffer: nothing written */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_the_reason_and_returns_the_code),
        cmocka_unit_test(truncates_to_the_buffer),
        cmocka_unit_test(no_buffer_only_returns_the_code),
        cmocka_unit_test(a_va_list_is_formatted_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
