/* Address selection by family; see addr_select.h. */
#include "gateways/sbi/addr_select.h"

#include <stddef.h>
#include <sys/socket.h>

const char *const bsf_family_pref_names[] = {"any", "ipv4", "ipv6", "ipv4_ipv6", "ipv6_ipv4",
                                             NULL};

static const struct addrinfo *first_of(const struct addrinfo *res, int family)
{
    for (; res; res = res->ai_next)
        if (res->ai_family == family)
            return res;
    return NULL;
}

const struct addrinfo *bsf_addr_select(const struct addrinfo *res, bsf_family_pref_t pref)
{
    const struct addrinfo *a;
    switch (pref) {
    case BSF_FAMILY_IPV4:
        return first_of(res, AF_INET);
    case BSF_FAMILY_IPV6:
        return first_of(res, AF_INET6);
    case BSF_FAMILY_IPV4_IPV6:
        a = first_of(res, AF_INET);
        return a ? a : first_of(res, AF_INET6);
    case BSF_FAMILY_IPV6_IPV4:
        a = first_of(res, AF_INET6);
        return a ? a : first_of(res, AF_INET);
    case BSF_FAMILY_ANY:
    default:
        return res;
    }
}
