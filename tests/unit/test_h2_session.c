/* What the HTTP/2 client and server share (gateways/sbi/h2_session.h): the growth of their
 * buffers, through realloc and through a worker's memory budget. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_growth_starts_at_first_and_doubles_to_the_need),
        cmocka_unit_test(growth_keeps_what_the_buffer_held),
        cmocka_unit_test(with_a_budget_the_bytes_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
