/* core/binding_id: binding ids (make, format, parse). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/binding_id.h"
#include "tests/unit/test_util.h"

static void binding_ids(void **state)
{
    (void)state;
    bsf_binding_id_t id, back;
    uint8_t rnd[8] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3};
    bsf_binding_id_make(258, 0x0102030405ULL, rnd, &id);
    char t[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&id, t);
    assert_string_equal(t, "0102000102030405deadbeef00010203");
    assert_true(bsf_binding_id_parse(t, strlen(t), &back));
    assert_memory_equal(id.b, back.b, 16);
    assert_int_equal(bsf_binding_id_site(&id), 258);
    assert_false(bsf_binding_id_parse("0102", 4, &back));
    assert_false(bsf_binding_id_parse("0102000102030405DEADBEEF00010203", 32, &back));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binding_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
