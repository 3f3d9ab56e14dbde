/* gateways/nrf/nrf_formats.c: PLMN, S-NSSAI, address ranges, NF types. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/nrf/nrf_formats.h"

/* Each text of a list is refused by one parser (its output is not looked at). */
static int plmn_parse(const char *text)
{
    bsf_nrf_plmn_t p;
    return bsf_nrf_parse_plmn(text, &p);
}

static int snssai_parse(const char *text)
{
    bsf_nrf_snssai_t n;
    return bsf_nrf_parse_snssai(text, &n);
}

static void all_rejected(int (*parse)(const char *), const char *const *bad, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_int_equal(parse(bad[i]), -1);
}
#define ALL_REJECTED(parse, ...)                                                                  \
    do {                                                                                          \
        const char *const bad_[] = {__VA_ARGS__};                                                 \
        all_rejected(parse, bad_, sizeof bad_ / sizeof bad_[0]);                                  \
    } while (0)

static void formats(void **state)
{
    (void)state;
    bsf_nrf_plmn_t p;
    assert_int_equal(bsf_nrf_parse_plmn("001-01", &p), 0);
    assert_string_equal(p.mcc, "001");
    assert_string_equal(p.mnc, "01");
    assert_int_equal(bsf_nrf_parse_plmn("310-410", &p), 0);
    assert_string_equal(p.mnc, "410");
    ALL_REJECTED(plmn_parse, "01-01", "001-1", "001-0001", "0a1-01", "00101", "");
    bsf_nrf_snssai_t n;
    assert_int_equal(bsf_nrf_parse_snssai("1-00000a", &n), 0);
    assert_int_equal(n.sst, 1);
    assert_string_equal(n.sd, "00000A");
    assert_int_equal(bsf_nrf_parse_snssai("255", &n), 0);
    assert_string_equal(n.sd, "");
    ALL_REJECTED(snssai_parse, "256", "-1", "1-0000", "1-00000g", "x", "");
    char a[64], b[64];
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.0-10.0.0.255", a, b), 0);
    assert_string_equal(a, "10.0.0.0");
    assert_string_equal(b, "10.0.0.255");
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.9-10.0.0.1", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.1", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::/48-2001:db8:ff::/48", a, b), 0);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::-2001:db8:ff::", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::/129-2001:db8::/48", a, b), -1);
    assert_true(bsf_nrf_nf_type_valid("PCF") && bsf_nrf_nf_type_valid("5G_EIR"));
    assert_false(bsf_nrf_nf_type_valid("pcf") || bsf_nrf_nf_type_valid(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
