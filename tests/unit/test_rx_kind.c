/* gateways/diameter/rx_kind: request kinds and timeout precedence (seed 3.22). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_kind.h"
#include "tests/unit/rx_fixtures.h"

static void timeouts_and_kinds(void **state)
{
    (void)state;
    bsf_diameter_settings_t s = tr_settings();
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_I), 4000);
    s.timeout_ms = 6000;
    s.timeout_aar_ms = 3000;
    /* seed 3.22 test 2: message level wins, the others take the interface level */
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_I), 3000);
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_U), 3000);
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_RAR), 6000);
    s.timeout_str_ms = 5000;
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_STR), 5000);

    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_NONE, false), BSF_RX_AAR_I);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_INITIAL, false), BSF_RX_AAR_I);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_NONE, true), BSF_RX_AAR_U);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_UPDATE, false), BSF_RX_AAR_U);
    assert_int_equal(bsf_rx_kind_classify(275, -1, true), BSF_RX_STR);
    assert_int_equal(bsf_rx_kind_classify(258, -1, true), BSF_RX_RAR);
    assert_int_equal(bsf_rx_kind_classify(274, -1, false), BSF_RX_ASR);
    assert_int_equal(bsf_rx_kind_classify(999, -1, false), BSF_RX_OTHER);
    assert_string_equal(bsf_rx_kind_name(BSF_RX_AAR_U), "AAR-U");

    snprintf(s.retry, sizeof s.retry, "aar\nasr");
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_AAR_I));
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_AAR_U));
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_ASR));
    assert_false(bsf_rx_kind_retry_enabled(&s, BSF_RX_STR));
    assert_false(bsf_rx_kind_retry_enabled(&s, BSF_RX_OTHER));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timeouts_and_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
