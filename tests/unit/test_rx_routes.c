/* gateways/diameter/rx_routes: peer and route items of the configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_routes.h"

static void peer_and_route_items(void **state)
{
    (void)state;
    char err[256];
    bsf_rx_peer_cfg_t p;
    assert_int_equal(bsf_rx_peer_parse("pcf1.example.com=127.0.0.1:3870", &p, err, sizeof err), 0);
    assert_string_equal(p.id, "pcf1.example.com");
    assert_string_equal(p.host, "127.0.0.1");
    assert_int_equal(p.port, 3870);
    assert_false(p.tls);
    assert_string_equal(p.tls_version, "");
    assert_int_equal(bsf_rx_peer_parse("pcf2=[::1]:3868", &p, err, sizeof err), 0);
    assert_string_equal(p.host, "::1");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls", &p, err, sizeof err), 0);
    assert_true(p.tls);
    assert_string_equal(p.tls_version, "");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls=1.2", &p, err, sizeof err), 0);
    assert_true(p.tls);
    assert_string_equal(p.tls_version, "1.2");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls=1.3", &p, err, sizeof err), 0);
    assert_string_equal(p.tls_version, "1.3");
    const char *bad[] = {"pcf1", "=1.2.3.4:1", "pcf1=1.2.3.4", "pcf1=host.name:1", "pcf1=1.2.3.4:0",
                         "pcf1=1.2.3.4:70000", "bad id=1.2.3.4:1", "pcf1=1.2.3.4:1 tls=1.1",
                         "pcf1=1.2.3.4:1 tls=", "pcf1=1.2.3.4:1 tls=1.3x", "pcf1=1.2.3.4:1 TLS"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_peer_parse(bad[i], &p, err, sizeof err), -1);

    bsf_rx_route_t r;
    assert_int_equal(bsf_rx_route_parse("realm=example.com peer=pcf1 priority=2", &r, err, sizeof err), 0);
    assert_string_equal(r.host, "*");
    assert_int_equal(r.priority, 2);
    const char *rbad[] = {"peer=pcf1", "realm=x", "realm=x peer=*", "realm=x peer=p priority=-1",
                          "realm=x peer=p color=red", "realm=x realm=y peer=p", "realm=x peer"};
    for (size_t i = 0; i < sizeof rbad / sizeof rbad[0]; i++)
        assert_int_equal(bsf_rx_route_parse(rbad[i], &r, err, sizeof err), -1);

    bsf_rx_routes_t t;
    assert_int_equal(bsf_rx_routes_load("realm=example.com peer=pcf3 priority=3\n"
                                        "realm=example.com host=pcf1.example.com peer=pcf1 priority=1\n"
                                        "realm=example.com peer=pcf2 priority=1\n"
                                        "realm=* peer=dra1 priority=9\n"
                                        "realm=other.com peer=pcf9 priority=0",
                                        &t, err, sizeof err),
                     0);
    const char *out[8];
    size_t n = bsf_rx_routes_select(&t, "EXAMPLE.com", "pcf1.example.com", out, 8);
    assert_int_equal(n, 4);
    assert_string_equal(out[0], "pcf1"); /* same priority: the exact host first */
    assert_string_equal(out[1], "pcf2");
    assert_string_equal(out[2], "pcf3");
    assert_string_equal(out[3], "dra1");
    n = bsf_rx_routes_select(&t, "example.com", NULL, out, 8); /* no host: wildcard routes */
    assert_int_equal(n, 3);
    assert_string_equal(out[0], "pcf2");
    n = bsf_rx_routes_select(&t, "nowhere.org", "h", out, 8);
    assert_int_equal(n, 1);
    assert_string_equal(out[0], "dra1");
    bsf_rx_routes_free(&t);
    assert_int_equal(bsf_rx_routes_load("realm=a peer=p\nnonsense", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "item 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peer_and_route_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
