/* 3gpp-Sbi-Binding / -Routing-Binding values (gateways/sbi/sbi_binding.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/sbi_binding.h"

static int parse(const char *v, bsf_sbi_binding_t *b)
{
    return bsf_sbi_binding_parse(v, strlen(v), b);
}

static void test_instance_binding_with_a_set(void **state)
{
    (void)state;
    bsf_sbi_binding_t b;
    assert_int_equal(parse("bl=nfinstance; nfinst=54804518-4191-46b3-955c-ac631f953ed8; "
                           "nfset=set1.pcfset.5gc.mnc012.mcc345; servname=npcf-smpolicycontrol",
                           &b), 0);
    assert_int_equal(b.level, BSF_BINDING_NF_INSTANCE);
    assert_string_equal(b.nf_instance, "54804518-4191-46b3-955c-ac631f953ed8");
    assert_string_equal(b.nf_set, "set1.pcfset.5gc.mnc012.mcc345");
    assert_string_equal(b.service_name, "npcf-smpolicycontrol");
    assert_string_equal(bsf_sbi_binding_reselect_set(&b), "set1.pcfset.5gc.mnc012.mcc345");
}

static void test_instance_binding_without_a_set_allows_no_reselection(void **state)
{
    (void)state;
    bsf_sbi_binding_t b;
    assert_int_equal(parse("bl=nfinstance;nfinst=abc", &b), 0);
    assert_null(bsf_sbi_binding_reselect_set(&b));
}

static void test_set_binding_unknown_parameters_and_case(void **state)
{
    (void)state;
    bsf_sbi_binding_t b;
    assert_int_equal(parse("  BL=NFSet ;nfset=s1 ; scope=other-service ;recoverytime=x ", &b), 0);
    assert_int_equal(b.level, BSF_BINDING_NF_SET);
    assert_string_equal(bsf_sbi_binding_reselect_set(&b), "s1");
    assert_int_equal(parse("bl=nfserviceset; nfset=s2; nfservset=x", &b), 0);
    assert_int_equal(b.level, BSF_BINDING_NF_SERVICE_SET);
}

static void test_bad_values_are_refused(void **state)
{
    (void)state;
    bsf_sbi_binding_t b;
    const char *bad[] = {"", "nfset=s1", "bl=planet; nfset=s1", "bl=nfset;;nfset=s1",
                         "bl=nfset; nfset", "bl=nfset; =x", "bl=nfset; nfset=",
                         "bl=nfset; nfset=a b", "bl=nfset; nfset=a\x01", "bl=nfset; x=\x7f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i], &b), -1);
        assert_int_equal(b.level, BSF_BINDING_NONE);
        assert_null(bsf_sbi_binding_reselect_set(&b));
    }
    char longer[300];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(longer, "bl=nfset; nfset=", 16);
    assert_int_equal(parse(longer, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instance_binding_with_a_set),
        cmocka_unit_test(test_instance_binding_without_a_set_allows_no_reselection),
        cmocka_unit_test(test_set_binding_unknown_parameters_and_case),
        cmocka_unit_test(test_bad_values_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
