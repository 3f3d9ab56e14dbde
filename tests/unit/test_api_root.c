/* core/api_root: splitting SBI URIs at the resource path, joining, building apiRoots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/api_root.h"

/* The split of `uri`: its apiRoot into root, the path below it returned (into uri). */
static const char *split(const char *uri, const char *service, char *root, size_t cap)
{
    size_t at = 0;
    assert_int_equal(bsf_api_root_split(uri, service, root, cap, &at), BSF_API_ROOT_OK);
    return uri + at;
}

static void split_with_and_without_prefix(void **state)
{
    (void)state;
    char root[128];
    const char *u = "http://pcf1.example.org:8080/npcf-policyauthorization/v1/app-sessions/7";
    assert_string_equal(split(u, "npcf-policyauthorization", root, sizeof root),
                        "/npcf-policyauthorization/v1/app-sessions/7");
    assert_string_equal(root, "http://pcf1.example.org:8080");
    u = "https://10.0.0.1/a/b/npcf-policyauthorization/v1/app-sessions?x=1&y=2";
    assert_string_equal(split(u, "npcf-policyauthorization", root, sizeof root),
                        "/npcf-policyauthorization/v1/app-sessions?x=1&y=2");
    assert_string_equal(root, "https://10.0.0.1/a/b");
    /* without a service name: the first segment followed by a version */
    u = "http://h:1/pfx/npcf-custom-binding/v12/sessions/s1";
    assert_string_equal(split(u, NULL, root, sizeof root), "/npcf-custom-binding/v12/sessions/s1");
    assert_string_equal(root, "http://h:1/pfx");
    assert_string_equal(split(u, "", root, sizeof root), "/npcf-custom-binding/v12/sessions/s1");
    /* a prefix with a trailing slash (double slash) is not part of the apiRoot */
    assert_string_equal(split("http://h/pfx//svc/v1", "svc", root, sizeof root), "/svc/v1");
    assert_string_equal(root, "http://h/pfx");
    /* the version may end the URI or be followed by a query */
    assert_string_equal(split("http://h/svc/v2?q=1", "svc", root, sizeof root), "/svc/v2?q=1");
    /* the named service, not an earlier segment that merely looks like one */
    assert_string_equal(split("http://h/other/v1/svc/v1/r", "svc", root, sizeof root),
                        "/svc/v1/r");
    assert_string_equal(root, "http://h/other/v1");
    /* only the offset */
    size_t at = 0;
    assert_int_equal(bsf_api_root_split("http://h/svc/v1", "svc", NULL, 0, &at), 0);
    assert_int_equal(at, 8);
}

static void split_ipv6_and_ports(void **state)
{
    (void)state;
    char root[128];
    assert_string_equal(split("http://[2001:db8::1]:8080/p/svc/v1/x", "svc", root, sizeof root),
                        "/svc/v1/x");
    assert_string_equal(root, "http://[2001:db8::1]:8080/p");
    assert_string_equal(split("https://[::1]/svc/v1", "svc", root, sizeof root), "/svc/v1");
    assert_string_equal(root, "https://[::1]");
    assert_string_equal(split("HTTP://H:65535/svc/v1", NULL, root, sizeof root), "/svc/v1");
}

static void split_refuses_bad_input(void **state)
{
    (void)state;
    char root[64];
    size_t at = 99;
    const char *bad[] = {
        "ftp://h/svc/v1", "http:/h/svc/v1", "http:///svc/v1", "http://h:0/svc/v1",
        "http://h:65536/svc/v1", "http://h:/svc/v1", "http://h:8x/svc/v1",
        "http://user@h/svc/v1", "http://[2001:db8::1/svc/v1", "http://[]/svc/v1",
        "http://[zz]/svc/v1", "http://[2001:db8::1]x/svc/v1", "http://h/svc/v1#frag",
        "http://h/sv c/v1", "http://h/svc/v1\n", "", "h/svc/v1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_api_root_split(bad[i], "svc", root, sizeof root, &at),
                         BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_split(NULL, "svc", root, sizeof root, &at),
                     BSF_API_ROOT_EINVAL);
    /* well formed, but no /{service}/{version} */
    const char *nopath[] = {"http://h", "http://h/", "http://h/svc", "http://h/svc/x1",
                            "http://h/svc/v", "http://h/svcx/v1", "http://h?svc/v1",
                            "http://h/a/v1x"};
    for (size_t i = 0; i < sizeof nopath / sizeof nopath[0]; i++)
        assert_int_equal(bsf_api_root_split(nopath[i], "svc", root, sizeof root, &at),
                         BSF_API_ROOT_ENOPATH);
    assert_int_equal(bsf_api_root_split("http://h/v1", NULL, root, sizeof root, &at),
                     BSF_API_ROOT_ENOPATH);
    assert_int_equal(at, 99); /* untouched on error */
    assert_int_equal(bsf_api_root_split("http://a-long-host-name.example.org/svc/v1", "svc",
                                        root, 10, &at),
                     BSF_API_ROOT_ETOOLONG);
}

static void join(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(bsf_api_root_join("http://h:1/pfx/", "/svc/v1/r?a=b", out, sizeof out), 0);
    assert_string_equal(out, "http://h:1/pfx/svc/v1/r?a=b");
    assert_int_equal(bsf_api_root_join("http://h:1/pfx", "/svc/v1/r", out, sizeof out), 0);
    assert_string_equal(out, "http://h:1/pfx/svc/v1/r");
    assert_int_equal(bsf_api_root_join("https://[::1]:9", "/svc/v1", out, sizeof out), 0);
    assert_string_equal(out, "https://[::1]:9/svc/v1");
    assert_int_equal(bsf_api_root_join("http://h/", NULL, out, sizeof out), 0);
    assert_string_equal(out, "http://h/");
    assert_int_equal(bsf_api_root_join("http://h?x", "/svc/v1", out, sizeof out),
                     BSF_API_ROOT_EINVAL); /* an apiRoot has no query */
    assert_int_equal(bsf_api_root_join("http://h", "svc/v1", out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_join("http://h", "/a b", out, sizeof out), BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_join("mailto:x", "/svc", out, sizeof out), BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_join("http://h", "/svc/v1/long", out, 12),
                     BSF_API_ROOT_ETOOLONG);
    /* split then join: the alternate gets the same resource path, query included */
    char root[64];
    const char *path = split("http://a:1/x/svc/v1/r?q=1", "svc", root, sizeof root);
    assert_int_equal(bsf_api_root_join("http://b:2/y/z", path, out, sizeof out), 0);
    assert_string_equal(out, "http://b:2/y/z/svc/v1/r?q=1");
}

static void build(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(bsf_api_root_build("http", "10.0.0.1", 0, NULL, out, sizeof out), 0);
    assert_string_equal(out, "http://10.0.0.1:80");
    assert_int_equal(bsf_api_root_build("https", "pcf.example.org", 0, "", out, sizeof out), 0);
    assert_string_equal(out, "https://pcf.example.org:443");
    assert_int_equal(bsf_api_root_build("http", "2001:db8::2", 8080, "pfx/", out, sizeof out), 0);
    assert_string_equal(out, "http://[2001:db8::2]:8080/pfx");
    assert_int_equal(bsf_api_root_build("http", "[::1]", 1, "/a/b", out, sizeof out), 0);
    assert_string_equal(out, "http://[::1]:1/a/b");
    assert_int_equal(bsf_api_root_build("http", "h", 1, "/", out, sizeof out), 0);
    assert_string_equal(out, "http://h:1");
    assert_int_equal(bsf_api_root_build("ftp", "h", 1, NULL, out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "", 1, NULL, out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "h", 70000, NULL, out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "h h", 1, NULL, out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "h", 1, "p?q", out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "h", 1, "p#f", out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build(NULL, "h", 1, NULL, out, sizeof out),
                     BSF_API_ROOT_EINVAL);
    assert_int_equal(bsf_api_root_build("http", "host", 1, "prefix", out, 16),
                     BSF_API_ROOT_ETOOLONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_with_and_without_prefix),
        cmocka_unit_test(split_ipv6_and_ports),
        cmocka_unit_test(split_refuses_bad_input),
        cmocka_unit_test(join),
        cmocka_unit_test(build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
