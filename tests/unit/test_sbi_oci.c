/* gateways/sbi/sbi_oci: the 3gpp-Sbi-Oci and 3gpp-Sbi-Lci values (TS 29.500 §5.2.3.3.9,
 * §5.2.3.3.10): what the BSF writes parses back, and malformed OCIs are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/sbi_client_oci.h"
#include "gateways/sbi/sbi_oci.h"

#define ID "54804518-4191-46b3-955c-ac631f953ed8"

static void format_and_parse(void **state)
{
    (void)state;
    char v[BSF_SBI_OCI_MAX];
    size_t n = bsf_sbi_oci_format(1580806177845ull, 60, 20, ID, v, sizeof v);
    assert_string_equal(v, "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 60; "
                           "Metric: 20%; NFInst: " ID);
    assert_int_equal(n, strlen(v));
    bsf_sbi_oci_t o;
    assert_int_equal(bsf_sbi_oci_parse(v, n, &o), 0);
    assert_int_equal(o.ts_ms, 1580806177845ll);
    assert_int_equal(o.validity_s, 60);
    assert_int_equal(o.metric, 20);
    assert_string_equal(o.scope_kind, "NFInst");
    assert_string_equal(o.scope, ID);
    n = bsf_sbi_lci_format(1580806177845ull, 25, ID, v, sizeof v);
    assert_string_equal(v, "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Metric: 25%; "
                           "NFInst: " ID);
    assert_int_equal(bsf_sbi_oci_format(1, 1, 1, ID, v, 20), 0); /* does not fit */
}

static void parse_others(void **state)
{
    (void)state;
    bsf_sbi_oci_t o;
    const char *set = "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 5; "
                      "Metric: 0%; NFSet: set1.pcfset.5gc.mnc012.mcc345; S-NSSAI: 1";
    assert_int_equal(bsf_sbi_oci_parse(set, strlen(set), &o), 0);
    assert_string_equal(o.scope_kind, "NFSet");
    assert_string_equal(o.scope, "set1.pcfset.5gc.mnc012.mcc345");
    assert_int_equal(o.metric, 0);
    const char *bad[] = {
        "Validity: 5; Metric: 10%; NFInst: x",                                /* no timestamp */
        "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Metric: 10%; NFInst: x",
        "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 5; Metric: 101%; NFInst: x",
        "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 5; Metric: 10; NFInst: x",
        "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 5; Metric: 10%",
        "Timestamp: Tue, 04 Feb 2020; Validity: 5; Metric: 10%; NFInst: x",
        "Timestamp: \"not a date\"; Validity: 5; Metric: 10%; NFInst: x",
        "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: -5; Metric: 10%; NFInst: x",
        "",
        ";;;",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (bsf_sbi_oci_parse(bad[i], strlen(bad[i]), &o) != -1)
            fail_msg("accepted: %s", bad[i]);
    /* a control byte anywhere (found by fuzz_sbi_oci: a NUL made the scope empty) */
    static const char nul[] = "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 60; "
                              "Metric: 20%; NFInst: \0" "54803-ed8";
    assert_int_equal(bsf_sbi_oci_parse(nul, sizeof nul - 1, &o), -1);
    static const char lf[] = "Timestamp: \"Tue, 04 Feb 2020 08:49:37.845 GMT\"; Validity: 60; "
                             "Metric: 20%; NFInst: a\nb";
    assert_int_equal(bsf_sbi_oci_parse(lf, sizeof lf - 1, &o), -1);
}

/* The table: newer timestamps replace, older are discarded, validity ends it, Loss is exact. */
static void table(void **state)
{
    (void)state;
    static bsf_sbi_oci_table_t t;
    bsf_sbi_oci_t o = {.ts_ms = 1000, .validity_s = 2, .metric = 30};
    assert_true(bsf_sbi_oci_table_update(&t, "pcf1:80", &o, 5000));
    int dropped = 0;
    for (int i = 0; i < 100; i++)
        dropped += bsf_sbi_oci_table_throttle(&t, "pcf1:80", 5000);
    assert_int_equal(dropped, 30);
    assert_false(bsf_sbi_oci_table_throttle(&t, "pcf2:80", 5000)); /* another producer */
    bsf_sbi_oci_t older = {.ts_ms = 1000, .validity_s = 2, .metric = 0};
    assert_false(bsf_sbi_oci_table_update(&t, "pcf1:80", &older, 5100));
    for (int i = 0; i < 100; i++)
        assert_false(bsf_sbi_oci_table_throttle(&t, "pcf1:80", 7000)); /* expired */
    o.metric = 100;
    o.ts_ms = 2000;
    assert_true(bsf_sbi_oci_table_update(&t, "pcf1:80", &o, 8000));
    assert_true(bsf_sbi_oci_table_throttle(&t, "pcf1:80", 8001));
    assert_int_equal(t.throttled, 31);
    for (int i = 0; i < BSF_SBI_OCI_PEERS + 5; i++) { /* more producers than slots */
        char a[32];
        snprintf(a, sizeof a, "p%d:80", i);
        assert_true(bsf_sbi_oci_table_update(&t, a, &o, 9000 + (uint64_t)i));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format_and_parse),
        cmocka_unit_test(parse_others),
        cmocka_unit_test(table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
