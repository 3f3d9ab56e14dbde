/* gateways/diameter/rx_ue_addr: UE address decoding from Rx AVPs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_ue_addr.h"

static void ue_address(void **state)
{
    (void)state;
    bsf_discovery_query_t q;
    int bad6;
    uint8_t v4[4] = {10, 45, 0, 7};
    bsf_rx_ue_avps_t a = {.ipv4 = v4, .ipv4_len = 4, .ip_domain = "dom1", .dnn = "ims"};
    assert_int_equal(bsf_rx_ue_query_build(&a, &q, &bad6), BSF_RX_UE_OK);
    assert_int_equal(q.kind, BSF_UE_ADDR_IPV4);
    assert_memory_equal(q.ipv4.b, v4, 4);
    assert_string_equal(q.ip_domain, "dom1");
    assert_string_equal(q.dnn, "ims");
    a.ipv4_len = 3;
    assert_int_equal(bsf_rx_ue_query_build(&a, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    assert_int_equal(bad6, 0);
    /* RFC 3162 prefix: reserved, length, prefix octets (full or compact) */
    uint8_t v6[18] = {0, 64, 0x20, 0x01, 0x0d, 0xb8, 0, 1};
    bsf_rx_ue_avps_t b = {.ipv6 = v6, .ipv6_len = 18, .dnn = ""};
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_OK);
    assert_int_equal(q.kind, BSF_UE_ADDR_IPV6);
    assert_int_equal(q.ipv6.len, 64);
    assert_int_equal(q.ipv6.b[1], 0x01);
    assert_null(q.dnn);
    b.ipv6_len = 10; /* compact: 8 prefix octets */
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_OK);
    b.ipv6_len = 9; /* too short for /64 */
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    assert_int_equal(bad6, 1);
    v6[1] = 129;
    b.ipv6_len = 18;
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_VALUE);
    b.ipv6_len = 1;
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    bsf_rx_ue_avps_t none = {0};
    assert_int_equal(bsf_rx_ue_query_build(&none, &q, &bad6), BSF_RX_UE_MISSING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ue_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
