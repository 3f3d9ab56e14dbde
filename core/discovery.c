#include "core/discovery.h"

#include <string.h>

static bool ipv4_held(const bsf_discovery_query_t *q, const bsf_pcf_binding_t *b)
{
    if (b->has_ipv4 && memcmp(&b->ipv4, &q->ipv4, sizeof b->ipv4) == 0)
        return true;
    for (size_t i = 0; i < b->n_ipv4_routes; i++)
        if (bsf_ipv4_mask_contains(&b->ipv4_routes[i], &q->ipv4))
            return true;
    return false;
}

static bool ipv6_held(const bsf_discovery_query_t *q, const bsf_pcf_binding_t *b)
{
    if (b->has_ipv6 && bsf_ipv6_prefix_contains(&b->ipv6, &q->ipv6))
        return true;
    for (size_t i = 0; i < b->n_add_ipv6; i++)
        if (bsf_ipv6_prefix_contains(&b->add_ipv6[i], &q->ipv6))
            return true;
    for (size_t i = 0; i < b->n_ipv6_routes; i++)
        if (bsf_ipv6_prefix_contains(&b->ipv6_routes[i], &q->ipv6))
            return true;
    return false;
}

static bool mac_held(const bsf_discovery_query_t *q, const bsf_pcf_binding_t *b)
{
    if (b->has_mac && memcmp(&b->mac, &q->mac, sizeof b->mac) == 0)
        return true;
    for (size_t i = 0; i < b->n_add_mac; i++)
        if (memcmp(&b->add_mac[i], &q->mac, sizeof q->mac) == 0)
            return true;
    return false;
}

bool bsf_discovery_matches(const bsf_discovery_query_t *q, const bsf_pcf_binding_t *b)
{
    bool held = q->kind == BSF_UE_ADDR_IPV4   ? ipv4_held(q, b)
                : q->kind == BSF_UE_ADDR_IPV6 ? ipv6_held(q, b)
                                              : mac_held(q, b);
    if (!held)
        return false;
    if (q->ip_domain && (!b->ip_domain || strcmp(q->ip_domain, b->ip_domain) != 0))
        return false;
    if (q->dnn && (!b->dnn || !bsf_dnn_equal(q->dnn, b->dnn)))
        return false;
    if (q->supi && (!b->supi || strcmp(q->supi, b->supi) != 0))
        return false;
    if (q->gpsi && (!b->gpsi || strcmp(q->gpsi, b->gpsi) != 0))
        return false;
    if (q->has_snssai && (!b->has_snssai || !bsf_snssai_equal(&q->snssai, &b->snssai)))
        return false;
    return true;
}

int bsf_discovery_recency_cmp(uint64_t a_created, const bsf_binding_id_t *a_id,
                              uint64_t b_created, const bsf_binding_id_t *b_id)
{
    if (a_created != b_created)
        return a_created > b_created ? 1 : -1;
    /* The id starts with the site id, so this breaks ties by site, then by id. */
    return memcmp(a_id->b, b_id->b, sizeof a_id->b);
}
