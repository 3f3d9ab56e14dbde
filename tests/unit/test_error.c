/* bsf_strerror over the three ranges of common/error.h. */
#include <errno.h>
#include <lmdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"

#define ROW(name, value, text) {#name, (value)},
#define ERRNO_ROW(name) {#name, -(name)},
static const struct {
    const char *name;
    int code;
} rows[] = {BSF_ERROR_MAP(ROW) BSF_LMDB_ERROR_MAP(ROW) BSF_ERRNO_MAP(ERRNO_ROW)};
#define N_ROWS (sizeof rows / sizeof rows[0])

static void every_code_has_its_own_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ROWS; i++) {
        const char *t = bsf_strerror(rows[i].code);
        assert_non_null(t);
        assert_true(strlen(t) > 0);
        if (strncmp(t, "unknown error", 13) == 0)
            fail_msg("%s (%d) has no text", rows[i].name, rows[i].code);
        for (size_t j = 0; j < i; j++) {
            if (rows[j].code == rows[i].code)
                fail_msg("%s and %s share the code %d", rows[j].name, rows[i].name, rows[i].code);
            if (strcmp(bsf_strerror(rows[j].code), t) == 0)
                fail_msg("%s and %s share the text '%s'", rows[j].name, rows[i].name, t);
        }
    }
}

static void ranges_do_not_overlap(void **state)
{
    (void)state;
#define IN_OURS(name, value, text)                                                              \
    assert_true((value) >= BSF_ERROR_FIRST && (value) <= BSF_ERROR_LAST);
    BSF_ERROR_MAP(IN_OURS)
    /* lmdb.h's own values, not the table's copy. */
    assert_true(MDB_KEYEXIST < BSF_ERROR_FIRST);
    assert_true(MDB_LAST_ERRCODE < BSF_ERROR_FIRST);
#define ERRNO_ABOVE(name) assert_true(-(name) > BSF_ERROR_LAST);
    BSF_ERRNO_MAP(ERRNO_ABOVE)
}

static void lmdb_codes_keep_lmdb_meaning(void **state)
{
    (void)state;
    assert_int_equal(MDB_MAP_FULL, -30792);
    assert_string_equal(bsf_strerror(MDB_MAP_FULL), "LMDB: environment mapsize limit reached");
    assert_string_equal(bsf_strerror(MDB_NOTFOUND), "LMDB: no matching key/data pair found");
    /* LMDB returns system errors positive; both signs print the errno's text. */
    assert_string_equal(bsf_strerror(ENOMEM), bsf_strerror(-ENOMEM));
    assert_int_equal(bsf_err_from_lmdb(ENOSPC), -ENOSPC);
    assert_int_equal(bsf_err_from_lmdb(MDB_MAP_FULL), MDB_MAP_FULL);
    assert_int_equal(bsf_err_from_lmdb(0), 0);
}

static void unknown_and_zero_are_printable(void **state)
{
    (void)state;
    assert_string_equal(bsf_strerror(0), "success");
    assert_string_equal(bsf_strerror(-29050), "unknown error -29050");
    assert_string_equal(bsf_strerror(-1000000), "unknown error -1000000");
    assert_string_equal(bsf_strerror(-30000), "unknown error -30000");
    char big[40];
    snprintf(big, sizeof big, "unknown error %d", -2147483647 - 1);
    assert_string_equal(bsf_strerror(-2147483647 - 1), big);
    assert_string_equal(bsf_strerror(BSF_EFULL), "store full");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_code_has_its_own_text),
        cmocka_unit_test(ranges_do_not_overlap),
        cmocka_unit_test(lmdb_codes_keep_lmdb_meaning),
        cmocka_unit_test(unknown_and_zero_are_printable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
