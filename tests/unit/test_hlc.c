/* core/hlc: the hybrid logical clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/hlc.h"

static void hlc_is_monotonic(void **state)
{
    (void)state;
    bsf_hlc_t c = {0};
    uint64_t a = bsf_hlc_tick(&c, 1000);
    uint64_t b = bsf_hlc_tick(&c, 1000); /* same millisecond */
    uint64_t d = bsf_hlc_tick(&c, 999);  /* clock went back */
    assert_true(b > a && d > b);
    assert_int_equal(BSF_HLC_MS(a), 1000);
    bsf_hlc_observe(&c, BSF_HLC_FROM_MS(5000));
    assert_true(bsf_hlc_tick(&c, 1001) > BSF_HLC_FROM_MS(5000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hlc_is_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
