/* core/discovery: discovery matching and recency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/discovery.h"
#include "tests/unit/test_util.h"

static void discovery_matching(void **state)
{
    (void)state;
    bsf_pcf_binding_t *b = tu_bind("{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\","
                                   "\"gpsi\":\"msisdn-4917000001\","
                                   "\"ipv4Addr\":\"10.0.0.1\",\"ipDomain\":\"corp\","
                                   "\"ipv4FrameRouteList\":[\"172.16.0.0/12\"],"
                                   "\"snssai\":{\"sst\":1,\"sd\":\"00000a\"},"
                                   "\"pcfFqdn\":\"pcf.example.com\"}");
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV4};
    assert_true(bsf_ipv4_parse("10.0.0.1", 8, &q.ipv4));
    assert_true(bsf_discovery_matches(&q, b));
    q.ip_domain = "corp";
    q.dnn = "Internet";
    q.supi = "imsi-001010000000001";
    q.gpsi = "msisdn-4917000001";
    q.has_snssai = true;
    q.snssai = (bsf_snssai_t){1, true, 10};
    assert_true(bsf_discovery_matches(&q, b));
    q.snssai.sd = 11;
    assert_false(bsf_discovery_matches(&q, b));
    q.has_snssai = false;
    q.ip_domain = "other";
    assert_false(bsf_discovery_matches(&q, b));
    q.ip_domain = NULL;
    q.supi = "imsi-001010000000002";
    assert_false(bsf_discovery_matches(&q, b));
    q.supi = NULL;
    /* An address inside a framed route. */
    assert_true(bsf_ipv4_parse("172.20.1.1", 10, &q.ipv4));
    assert_true(bsf_discovery_matches(&q, b));
    assert_true(bsf_ipv4_parse("172.40.1.1", 10, &q.ipv4));
    assert_false(bsf_discovery_matches(&q, b));

    bsf_binding_id_t x, y;
    memset(x.b, 1, 16);
    memset(y.b, 2, 16);
    assert_true(bsf_discovery_recency_cmp(10, &x, 9, &y) > 0);
    assert_true(bsf_discovery_recency_cmp(9, &x, 9, &y) < 0); /* tie: higher id wins */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(discovery_matching, tu_scratch_setup, tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
