/* gateways/diameter/rx_realm: realm validation and overwrite (seed 3.12). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_realm.h"
#include "tests/unit/rx_fixtures.h"

static void realm_rules(void **state)
{
    (void)state;
    bsf_diameter_settings_t s = tr_settings();
    bool ow;
    /* all flags off: everything passes, nothing is overwritten */
    assert_int_equal(bsf_rx_realm_check_request(&s, "other.com"), BSF_RX_REALM_OK);
    assert_int_equal(bsf_rx_realm_check_binding(&s, "other.com", "pcf.com", &ow), BSF_RX_REALM_OK);
    assert_false(ow);
    /* seed 3.12 test 1: Validate.Realm and another realm: 3003 */
    s.validate_realm = true;
    assert_int_equal(bsf_rx_realm_check_request(&s, "other.com"), BSF_RX_REALM_NOT_OURS);
    assert_int_equal(bsf_rx_realm_check_request(&s, NULL), BSF_RX_REALM_NOT_OURS);
    assert_int_equal(bsf_rx_realm_check_request(&s, "BSF.example.com"), BSF_RX_REALM_OK);
    /* test 2: Validate.Binding.Realm and a binding of another realm: 3003 */
    s.validate_binding_realm = true;
    assert_int_equal(bsf_rx_realm_check_binding(&s, "bsf.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_NOT_BINDINGS);
    assert_int_equal(bsf_rx_realm_check_binding(&s, "pcf1.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_OK);
    assert_false(ow); /* already equal */
    /* a binding without a realm fails no check */
    assert_int_equal(bsf_rx_realm_check_binding(&s, "x", NULL, &ow), BSF_RX_REALM_OK);
    /* overwrite, with and without the binding-realm check */
    s.overwrite_realm = true;
    s.validate_binding_realm = false;
    assert_int_equal(bsf_rx_realm_check_binding(&s, "bsf.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_OK);
    assert_true(ow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(realm_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
