/* The query iterator every Nbsf_Management discovery reads its parameters with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/query_string.h"

typedef struct {
    msgpack_zone zone;
    bsf_query_iter_t it;
} fixture_t;

static int setup(void **state)
{
    static fixture_t f;
    msgpack_zone_init(&f.zone, 256);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    msgpack_zone_destroy(&f->zone);
    return 0;
}

static void start(fixture_t *f, const char *q)
{
    assert_int_equal(bsf_query_iter_init(&f->it, q, strlen(q), &f->zone), 0);
}

static void items_and_values_are_decoded(void **state)
{
    fixture_t *f = *state;
    start(f, "supi=imsi-001%2d01&&gpsi&supp-feat=a+b");
    bsf_query_item_t item;
    char *v;
    assert_true(bsf_query_next(&f->it, &item));
    assert_true(item.name_ok);
    assert_string_equal(item.name, "supi");
    assert_int_equal(bsf_query_value(&f->it, &item, &v), 11);
    assert_string_equal(v, "imsi-001-01");
    /* the empty item between "&&" is skipped; an item without '=' has an empty value */
    assert_true(bsf_query_next(&f->it, &item));
    assert_string_equal(item.name, "gpsi");
    assert_int_equal(item.raw_len, 0);
    assert_int_equal(bsf_query_value(&f->it, &item, &v), 0);
    assert_string_equal(v, "");
    assert_true(bsf_query_next(&f->it, &item));
    assert_int_equal(bsf_query_value(&f->it, &item, &v), 3);
    assert_string_equal(v, "a b");
    assert_false(bsf_query_next(&f->it, &item));
}

static void bad_names_and_values_are_reported(void **state)
{
    fixture_t *f = *state;
    start(f, "abcdefghijklmnopqrstuvwxyz0123456789=1&n%zz=2&x=%00&y=%4");
    bsf_query_item_t item;
    char *v;
    assert_true(bsf_query_next(&f->it, &item)); /* 36 bytes: does not fit */
    assert_false(item.name_ok);
    assert_string_equal(item.name, "");
    assert_true(bsf_query_next(&f->it, &item)); /* malformed escape in the name */
    assert_false(item.name_ok);
    assert_true(bsf_query_next(&f->it, &item)); /* an encoded NUL is refused */
    assert_true(item.name_ok);
    assert_int_equal(bsf_query_value(&f->it, &item, &v), -1);
    assert_true(bsf_query_next(&f->it, &item)); /* a truncated escape */
    assert_int_equal(bsf_query_value(&f->it, &item, &v), -1);
    assert_false(bsf_query_next(&f->it, &item));
}

static void every_value_fits_the_buffer(void **state)
{
    /* the worst case for the buffer: many one-byte values without names */
    fixture_t *f = *state;
    start(f, "=a&=b&=c&=d&=e");
    bsf_query_item_t item;
    char *v;
    int n = 0;
    while (bsf_query_next(&f->it, &item)) {
        assert_true(item.name_ok);
        assert_string_equal(item.name, "");
        assert_int_equal(bsf_query_value(&f->it, &item, &v), 1);
        assert_int_equal(v[0], 'a' + n++);
    }
    assert_int_equal(n, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(items_and_values_are_decoded, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_names_and_values_are_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(every_value_fits_the_buffer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
