/* Canonical forms and containment of UE addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/address.h"

static void ipv4_strict_forms(void **state)
{
    (void)state;
    bsf_ipv4_t a;
    char t[BSF_IPV4_TEXT_MAX];
    assert_true(bsf_ipv4_parse("10.0.0.1", 8, &a));
    assert_int_equal(bsf_ipv4_format(&a, t), 8);
    assert_string_equal(t, "10.0.0.1");
    assert_true(bsf_ipv4_parse("255.255.255.255", 15, &a));
    assert_true(bsf_ipv4_parse("0.0.0.0", 7, &a));
    const char *bad[] = {"010.0.0.1", "256.0.0.1", "1.2.3", "1.2.3.4.5", "1.2.3.", "a.b.c.d",
                         "1.2.3.4 ", " 1.2.3.4", "1..3.4", "", "1.2.3.-4", "1.2.3.1000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_ipv4_parse(bad[i], strlen(bad[i]), &a));
}

static void ipv6_prefix_canonical(void **state)
{
    (void)state;
    bsf_ipv6_prefix_t p;
    char t[BSF_IPV6_TEXT_MAX];
    const char *in = "2001:DB8:0:0:0::1/64";
    assert_true(bsf_ipv6_prefix_parse(in, strlen(in), &p));
    assert_int_equal(p.len, 64);
    bsf_ipv6_prefix_format(&p, t);
    assert_string_equal(t, "2001:db8::1/64"); /* host bits kept, RFC 5952 text */
    in = "2001:db8:0:1:0:0:0:0/128";
    assert_true(bsf_ipv6_prefix_parse(in, strlen(in), &p));
    bsf_ipv6_prefix_format(&p, t);
    assert_string_equal(t, "2001:db8:0:1::/128");
    const char *bad[] = {"2001:db8::", "2001:db8::/129", "2001:db8::/", "2001:db8::/1a",
                         "2001:db8::/0064", "gggg::/64", "1.2.3.4/32", "/64"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_ipv6_prefix_parse(bad[i], strlen(bad[i]), &p));
}

static void ipv6_containment(void **state)
{
    (void)state;
    bsf_ipv6_prefix_t net, inside, outside, wider;
    assert_true(bsf_ipv6_prefix_parse("2001:db8:1:2::/64", 17, &net));
    assert_true(bsf_ipv6_prefix_parse("2001:db8:1:2::abcd/128", 22, &inside));
    assert_true(bsf_ipv6_prefix_parse("2001:db8:1:3::abcd/128", 22, &outside));
    assert_true(bsf_ipv6_prefix_parse("2001:db8:1::/48", 15, &wider));
    assert_true(bsf_ipv6_prefix_contains(&net, &inside));
    assert_false(bsf_ipv6_prefix_contains(&net, &outside));
    assert_true(bsf_ipv6_prefix_contains(&net, &net));
    assert_false(bsf_ipv6_prefix_contains(&net, &wider)); /* a /48 query is not inside a /64 */
    assert_true(bsf_ipv6_prefix_contains(&wider, &net));
}

static void mac_case_insensitive(void **state)
{
    (void)state;
    bsf_mac48_t a, b;
    char t[BSF_MAC48_TEXT_MAX];
    assert_true(bsf_mac48_parse("AA-bb-0C-dD-EE-ff", 17, &a));
    assert_true(bsf_mac48_parse("aa-BB-0c-DD-ee-FF", 17, &b));
    assert_memory_equal(&a, &b, sizeof a);
    bsf_mac48_format(&a, t);
    assert_string_equal(t, "aa-bb-0c-dd-ee-ff");
    const char *bad[] = {"aa:bb:cc:dd:ee:ff", "aa-bb-cc-dd-ee", "aa-bb-cc-dd-ee-fg",
                         "aabbccddeeff", "aa-bb-cc-dd-ee-ff-00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_mac48_parse(bad[i], strlen(bad[i]), &a));
}

static void ipv4_routes(void **state)
{
    (void)state;
    bsf_ipv4_mask_t m;
    bsf_ipv4_t in, out;
    char t[BSF_IPV6_TEXT_MAX];
    assert_true(bsf_ipv4_mask_parse("198.51.0.0/16", 13, &m));
    bsf_ipv4_mask_format(&m, t);
    assert_string_equal(t, "198.51.0.0/16");
    assert_true(bsf_ipv4_parse("198.51.7.9", 10, &in));
    assert_true(bsf_ipv4_parse("198.52.0.1", 10, &out));
    assert_true(bsf_ipv4_mask_contains(&m, &in));
    assert_false(bsf_ipv4_mask_contains(&m, &out));
    assert_false(bsf_ipv4_mask_parse("198.51.0.0/33", 13, &m));
    assert_false(bsf_ipv4_mask_parse("198.51.0.0", 10, &m));
}

static void prefix_mask(void **state)
{
    (void)state;
    uint8_t in[4] = {0xff, 0xff, 0xff, 0xff}, out[4];
    bsf_prefix_mask(in, 4, 12, out);
    assert_int_equal(out[0], 0xff);
    assert_int_equal(out[1], 0xf0);
    assert_int_equal(out[2], 0);
    bsf_prefix_mask(in, 4, 0, out);
    assert_int_equal(out[0], 0);
    bsf_prefix_mask(in, 4, 32, out);
    assert_int_equal(out[3], 0xff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ipv4_strict_forms),    cmocka_unit_test(ipv6_prefix_canonical),
        cmocka_unit_test(ipv6_containment),     cmocka_unit_test(mac_case_insensitive),
        cmocka_unit_test(ipv4_routes),          cmocka_unit_test(prefix_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
