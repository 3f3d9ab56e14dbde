/* gateways/sbi/addr_select.c: the address the SBI client connects to by family (seed §3.8,
 * the egressRoutingMode table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "gateways/sbi/addr_select.h"

/* A getaddrinfo-like list of the given families, in order. */
static struct addrinfo *list(struct addrinfo *nodes, const int *families, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memset(&nodes[i], 0, sizeof nodes[i]);
        nodes[i].ai_family = families[i];
        nodes[i].ai_next = i + 1 < n ? &nodes[i + 1] : NULL;
    }
    return n ? nodes : NULL;
}

static void the_seed_table(void **state)
{
    (void)state;
    struct addrinfo v4[1], v6[1], both[4], *r4, *r6, *rb;
    r4 = list(v4, (const int[]){AF_INET}, 1);
    r6 = list(v6, (const int[]){AF_INET6}, 1);
    /* a name with IPv6 first (RFC 6724 order), then IPv4, then more of each */
    rb = list(both, (const int[]){AF_INET6, AF_INET, AF_INET6, AF_INET}, 4);
    /* IPv4 strict: connect / no connection / use IPv4 */
    assert_ptr_equal(bsf_addr_select(r4, BSF_FAMILY_IPV4), &v4[0]);
    assert_null(bsf_addr_select(r6, BSF_FAMILY_IPV4));
    assert_ptr_equal(bsf_addr_select(rb, BSF_FAMILY_IPV4), &both[1]);
    /* IPv6 strict */
    assert_null(bsf_addr_select(r4, BSF_FAMILY_IPV6));
    assert_ptr_equal(bsf_addr_select(r6, BSF_FAMILY_IPV6), &v6[0]);
    assert_ptr_equal(bsf_addr_select(rb, BSF_FAMILY_IPV6), &both[0]);
    /* IPv4_IPv6: either alone connects; both: IPv4 */
    assert_ptr_equal(bsf_addr_select(r4, BSF_FAMILY_IPV4_IPV6), &v4[0]);
    assert_ptr_equal(bsf_addr_select(r6, BSF_FAMILY_IPV4_IPV6), &v6[0]);
    assert_ptr_equal(bsf_addr_select(rb, BSF_FAMILY_IPV4_IPV6), &both[1]);
    /* IPv6_IPv4 */
    assert_ptr_equal(bsf_addr_select(r4, BSF_FAMILY_IPV6_IPV4), &v4[0]);
    assert_ptr_equal(bsf_addr_select(r6, BSF_FAMILY_IPV6_IPV4), &v6[0]);
    assert_ptr_equal(bsf_addr_select(rb, BSF_FAMILY_IPV6_IPV4), &both[0]);
    /* any: the resolver's first */
    assert_ptr_equal(bsf_addr_select(rb, BSF_FAMILY_ANY), &both[0]);
    assert_null(bsf_addr_select(NULL, BSF_FAMILY_IPV4_IPV6));
    assert_string_equal(bsf_family_pref_names[BSF_FAMILY_IPV6_IPV4], "ipv6_ipv4");
    assert_null(bsf_family_pref_names[BSF_FAMILY_IPV6_IPV4 + 1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_seed_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
