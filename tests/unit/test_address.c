/* Canonical forms and containment of UE addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <arpa/inet.h>

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
    assert_string_equal(t, "2001:db8::/64"); /* host bits zeroed, RFC 5952 text */
    in = "2001:db8:0:1:0:0:0:0/128";
    assert_true(bsf_ipv6_prefix_parse(in, strlen(in), &p));
    bsf_ipv6_prefix_format(&p, t);
    assert_string_equal(t, "2001:db8:0:1::/128");
    const char *bad[] = {"2001:db8::", "2001:db8::/129", "2001:db8::/", "2001:db8::/1a",
                         "2001:db8::/0064", "gggg::/64", "1.2.3.4/32", "/64",
                         "2001:db8::/064", "2001:db8::/00", "2001:db8::/08", "2001:db8::/+8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_ipv6_prefix_parse(bad[i], strlen(bad[i]), &p));
}

/* The canonical prefix: equal prefixes, whatever their host bits, have equal bytes and text. */
static void ipv6_prefix_host_bits_zeroed(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"2001:db8::1/64", "2001:db8::/64"},
        {"2001:db8:1:2:3:4:5:6/48", "2001:db8:1::/48"},
        {"2001:db8:ffff::/33", "2001:db8:8000::/33"},
        {"2001:db8::1/128", "2001:db8::1/128"},
        {"ffff::1/1", "8000::/1"},
        {"::1/0", "::/0"}, /* parses; bindings.ipv6_min_prefix_len refuses it in bindings */
        {"2001:db8::/7", "2000::/7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bsf_ipv6_prefix_t p;
        char t[BSF_IPV6_TEXT_MAX];
        assert_true(bsf_ipv6_prefix_parse(cases[i].in, strlen(cases[i].in), &p));
        bsf_ipv6_prefix_format(&p, t);
        assert_string_equal(t, cases[i].out);
    }
}

/* RFC 5952 §4 text, never the mixed IPv4 form the TS 29.571 patterns refuse. */
static void ipv6_rfc5952_text(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"::ffff:a00:1", "::ffff:a00:1"},        /* IPv4-mapped */
        {"::ffff:10.0.0.1", "::ffff:a00:1"},     /* mixed form accepted, not returned */
        {"::a00:1", "::a00:1"},                  /* IPv4-compatible */
        {"::10.0.0.1", "::a00:1"},
        {"64:ff9b::192.0.2.33", "64:ff9b::c000:221"},
        {"::", "::"}, {"::1", "::1"}, {"1::", "1::"}, {"fe80::", "fe80::"},
        {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"}, /* first of equal runs */
        {"2001:0:0:1:0:0:0:1", "2001:0:0:1::1"},       /* longest run */
        {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"}, /* one zero group stays */
        {"2001:DB8:00AB:0ABC:0:0:0:0", "2001:db8:ab:abc::"},
        {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
        {"0:0:0:0:0:0:0:8", "::8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t a[16];
        char t[BSF_IPV6_TEXT_MAX];
        assert_true(bsf_ipv6_addr_parse(cases[i].in, strlen(cases[i].in), a));
        assert_int_equal(bsf_ipv6_addr_format(a, t), strlen(cases[i].out));
        assert_string_equal(t, cases[i].out);
    }
    bsf_ipv6_prefix_t p;
    char t[BSF_IPV6_TEXT_MAX];
    assert_true(bsf_ipv6_prefix_parse("::ffff:a00:1/128", 16, &p));
    bsf_ipv6_prefix_format(&p, t);
    assert_string_equal(t, "::ffff:a00:1/128");
    /* Addresses glibc writes without the IPv4 form: both formatters must agree. */
    unsigned seed = 12345;
    for (int n = 0; n < 20000; n++) {
        uint8_t a[16];
        for (int g = 0; g < 8; g++) {
            seed = seed * 1103515245u + 12345u;
            unsigned v = (seed >> 16) % 4 == 0 ? (seed >> 8) & 0xffff : 0;
            a[2 * g] = (uint8_t)(v >> 8);
            a[2 * g + 1] = (uint8_t)v;
        }
        a[0] |= 0x20; /* first group non-zero: no mapped or compatible address */
        char glibc[INET6_ADDRSTRLEN];
        assert_non_null(inet_ntop(AF_INET6, a, glibc, sizeof glibc));
        bsf_ipv6_addr_format(a, t);
        assert_string_equal(t, glibc);
    }
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
        cmocka_unit_test(ipv6_prefix_host_bits_zeroed), cmocka_unit_test(ipv6_rfc5952_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
