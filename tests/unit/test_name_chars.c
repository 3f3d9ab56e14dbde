/* Plain-name characters (common/name_chars.h): each allowed class, each refused one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/name_chars.h"

static void letters_digits_dash_dot_underscore_pass(void **state)
{
    (void)state;
    const char *ok[] = {"abcxyz", "ABCXYZ", "0189", "pcf-1.site_a", "-._", "a"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_true(bsf_name_chars_only(ok[i], strlen(ok[i])));
    assert_true(bsf_name_chars_only("", 0)); /* the length is the caller's rule */
}

static void anything_else_fails(void **state)
{
    (void)state;
    const char *bad[] = {"a b", "a/b", "a:b", "a@b", "é", "a\tb", "a~b", "[x]", "a,b", "+"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_name_chars_only(bad[i], strlen(bad[i])));
    assert_false(bsf_name_chars_only("ab\0cd", 5)); /* a NUL inside the length */
    assert_true(bsf_name_chars_only("ab/cd", 2));   /* only the first n bytes count */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(letters_digits_dash_dot_underscore_pass),
        cmocka_unit_test(anything_else_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
