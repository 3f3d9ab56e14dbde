/* gateways/sbi/sbi_uri.c: URI forms, rejected URIs, redirects resolved against a base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/sbi_uri.h"

static int parse(const char *s, bsf_sbi_uri_t *u)
{
    char err[128];
    return bsf_sbi_uri_parse(s, strlen(s), u, err, sizeof err);
}

static void uri_forms(void **state)
{
    (void)state;
    bsf_sbi_uri_t u;
    assert_int_equal(parse("http://nrf.example.com:8080/nnrf-nfm/v1/nf-instances/x?a=b", &u), 0);
    assert_false(u.tls);
    assert_string_equal(u.host, "nrf.example.com");
    assert_int_equal(u.port, 8080);
    assert_string_equal(u.authority, "nrf.example.com:8080");
    assert_string_equal(u.path, "/nnrf-nfm/v1/nf-instances/x?a=b");
    assert_int_equal(parse("https://[2001:db8::1]/", &u), 0);
    assert_true(u.tls);
    assert_string_equal(u.host, "2001:db8::1");
    assert_int_equal(u.port, 443);
    assert_string_equal(u.authority, "[2001:db8::1]");
    assert_int_equal(parse("http://10.0.0.1", &u), 0);
    assert_string_equal(u.path, "/");
    assert_int_equal(u.port, 80);
    assert_int_equal(parse("http://h?x=1#frag", &u), 0);
    assert_string_equal(u.path, "/?x=1");
    char root[300];
    assert_int_equal(parse("https://scp.example:443/prefix", &u), 0);
    assert_true(bsf_sbi_uri_api_root(&u, root, sizeof root) > 0);
    assert_string_equal(root, "https://scp.example:443");
}

static void uri_rejects(void **state)
{
    (void)state;
    bsf_sbi_uri_t u;
    const char *bad[] = {"ftp://h/", "http://", "http:///x", "http://h:0/", "http://h:65536/",
                         "http://h:8x/", "http://[::1/", "http://[::1]x/", "http://u@h/",
                         "http://h/ space", "nrf.example/x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], &u), -1);
}

static void redirects_resolve(void **state)
{
    (void)state;
    bsf_sbi_uri_t base, out;
    char err[128];
    assert_int_equal(parse("https://nrf1:8443/nnrf-nfm/v1/nf-instances/1", &base), 0);
    assert_int_equal(bsf_sbi_uri_resolve(&base, "/other/path", 11, &out, err, sizeof err), 0);
    assert_true(out.tls);
    assert_string_equal(out.authority, "nrf1:8443");
    assert_string_equal(out.path, "/other/path");
    const char *abs = "http://nrf2:80/x";
    assert_int_equal(bsf_sbi_uri_resolve(&base, abs, strlen(abs), &out, err, sizeof err), 0);
    assert_false(out.tls);
    assert_string_equal(out.host, "nrf2");
    assert_int_equal(bsf_sbi_uri_resolve(&base, "relative", 8, &out, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uri_forms),
        cmocka_unit_test(uri_rejects),
        cmocka_unit_test(redirects_resolve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
