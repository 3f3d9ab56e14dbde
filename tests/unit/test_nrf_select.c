/* gateways/nrf/nrf_select.c: NRF selection by priority and health. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gateways/nrf/nrf_select.h"

static void selection(void **state)
{
    (void)state;
    bsf_nrf_select_t s;
    assert_int_equal(bsf_nrf_select_init(&s, "http://a:1/\nhttp://b:2\nhttp://c:3"), 3);
    assert_string_equal(s.peers[0].uri, "http://a:1");
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 0), 0);
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 1u), 1);
    bsf_nrf_select_failed(&s, 0, 1000, 5000);
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 0), 1);
    assert_int_equal(bsf_nrf_select_next_recovery(&s, 2000), 4000);
    assert_int_equal(bsf_nrf_select_pick(&s, 6000, 0), 0); /* healthy again */
    bsf_nrf_select_failed(&s, 1, 1000, 5000);
    bsf_nrf_select_failed(&s, 2, 1000, 3000);
    assert_int_equal(bsf_nrf_select_pick(&s, 2000, 0), -1);
    assert_int_equal(bsf_nrf_select_next_recovery(&s, 2000), 2000);
    assert_int_equal(s.peers[2].successive_failures, 1);
    bsf_nrf_select_succeeded(&s, 2);
    assert_int_equal(bsf_nrf_select_pick(&s, 2000, 0), 2);
    assert_int_equal(s.peers[2].successive_failures, 0);
    assert_int_equal(bsf_nrf_select_init(&s, ""), 0);
    assert_int_equal(bsf_nrf_select_pick(&s, 0, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
