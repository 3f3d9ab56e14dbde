/* Which of a host's resolved addresses the SBI client connects to (seed §3.8,
 * sbi_client.preferred_family): strict families, or a preferred one used alone when the name
 * has it. There is no fallback between families: when the preferred family is unreachable,
 * the peer is unavailable. Pure functions; any thread. */
#ifndef BSF_GATEWAYS_SBI_ADDR_SELECT_H
#define BSF_GATEWAYS_SBI_ADDR_SELECT_H

#include <netdb.h>

typedef enum {
    BSF_FAMILY_ANY,       /* the resolver's first address (getaddrinfo's RFC 6724 order) */
    BSF_FAMILY_IPV4,      /* IPv4 only: a name with only IPv6 addresses is not connected */
    BSF_FAMILY_IPV6,      /* IPv6 only */
    BSF_FAMILY_IPV4_IPV6, /* IPv4 when the name has one, else IPv6 */
    BSF_FAMILY_IPV6_IPV4, /* IPv6 when the name has one, else IPv4 */
} bsf_family_pref_t;

/* The configuration names of the values, in enum order (NULL-terminated): "any", "ipv4",
 * "ipv6", "ipv4_ipv6", "ipv6_ipv4". */
extern const char *const bsf_family_pref_names[];

/* The address of `res` (a getaddrinfo list) to connect to, or NULL when none fits. */
const struct addrinfo *bsf_addr_select(const struct addrinfo *res, bsf_family_pref_t pref);

#endif
