/* What the HTTP/2 client and server share (gateways/sbi/h2_session.h): the growth of their
 * buffers, through realloc and through a worker's memory budget, and the header store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/h2_session.h"

static void first_growth_starts_at_first_and_doubles_to_the_need(void **state)
{
    (void)state;
    char *data = NULL;
    size_t cap = 0;
    assert_int_equal(bsf_h2_buf_grow(NULL, &data, &cap, 10, 16), 0);
    assert_non_null(data);
    assert_int_equal(cap, 16);
    assert_int_equal(bsf_h2_buf_grow(NULL, &data, &cap, 100, 16), 0);
    assert_int_equal(cap, 128);
    free(data);
}

static void growth_keeps_what_the_buffer_held(void **state)
{
    (void)state;
    char *data = NULL;
    size_t cap = 0;
    assert_int_equal(bsf_h2_buf_grow(NULL, &data, &cap, 4, 4), 0);
    memcpy(data, "abcd", 4);
    assert_int_equal(bsf_h2_buf_grow(NULL, &data, &cap, 5, 4), 0);
    assert_int_equal(cap, 8);
    assert_memory_equal(data, "abcd", 4);
    free(data);
}

static void with_a_budget_the_bytes_are_counted(void **state)
{
    (void)state;
    bsf_h2_budget_t bud = {0};
    char *data = NULL;
    size_t cap = 0;
    assert_int_equal(bsf_h2_buf_grow(&bud, &data, &cap, 1000, 256), 0);
    assert_int_equal(cap, 1024);
    assert_true(bsf_h2_budget_used(&bud) >= 1024);
    size_t before = bsf_h2_budget_used(&bud);
    assert_int_equal(bsf_h2_buf_grow(&bud, &data, &cap, 1025, 256), 0);
    assert_int_equal(cap, 2048);
    assert_int_equal(bsf_h2_budget_used(&bud), before + 1024);
    bsf_h2_budget_free(&bud, data);
    assert_int_equal(bsf_h2_budget_used(&bud), 0);
}

static void header_strings_follow_each_other_with_their_nul(void **state)
{
    (void)state;
    char buf[16];
    size_t len = 0;
    assert_int_equal(bsf_h2_header_put(buf, &len, (const uint8_t *)":path", 5), 0);
    assert_int_equal(bsf_h2_header_put(buf, &len, (const uint8_t *)"/x", 2), 6);
    assert_int_equal(bsf_h2_header_put(buf, &len, (const uint8_t *)"", 0), 9);
    assert_int_equal(len, 10);
    assert_string_equal(buf, ":path");
    assert_string_equal(buf + 6, "/x");
    assert_string_equal(buf + 9, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_growth_starts_at_first_and_doubles_to_the_need),
        cmocka_unit_test(growth_keeps_what_the_buffer_held),
        cmocka_unit_test(with_a_budget_the_bytes_are_counted),
        cmocka_unit_test(header_strings_follow_each_other_with_their_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
