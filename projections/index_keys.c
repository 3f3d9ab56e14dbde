#include "projections/index_keys.h"

#include <ctype.h>
#include <string.h>

#include "core/address.h"

size_t bsf_index_ipv4_prefix(const bsf_ipv4_t *a, uint8_t *out)
{
    memcpy(out, a->b, 4);
    return 4;
}

size_t bsf_index_ipv4_route_prefix(const uint8_t addr[4], unsigned len, uint8_t *out)
{
    out[0] = (uint8_t)len;
    bsf_prefix_mask(addr, 4, len, out + 1);
    return 5;
}

size_t bsf_index_ipv6_prefix(const uint8_t addr[16], unsigned len, uint8_t *out)
{
    out[0] = (uint8_t)len;
    bsf_prefix_mask(addr, 16, len, out + 1);
    return 17;
}

size_t bsf_index_mac_prefix(const bsf_mac48_t *m, uint8_t *out)
{
    memcpy(out, m->b, 6);
    return 6;
}

size_t bsf_index_text_prefix(const char *text, uint8_t *out)
{
    size_t n = strlen(text);
    memcpy(out, text, n);
    out[n] = 0;
    return n + 1;
}

size_t bsf_index_dnn_prefix(const char *dnn, const bsf_snssai_t *snssai, uint8_t *out)
{
    size_t n = 0;
    for (; dnn[n]; n++)
        out[n] = (uint8_t)tolower((unsigned char)dnn[n]);
    out[n++] = 0;
    if (!snssai)
        return n;
    out[n++] = snssai->sst;
    out[n++] = snssai->has_sd;
    out[n++] = (uint8_t)(snssai->sd >> 16);
    out[n++] = (uint8_t)(snssai->sd >> 8);
    out[n++] = (uint8_t)snssai->sd;
    return n;
}

static bsf_index_key_t *push(bsf_index_key_t *k, bsf_index_kind_t kind, size_t prefix_len,
                             const bsf_binding_id_t *id)
{
    k->kind = kind;
    memcpy(k->key + prefix_len, id->b, 16);
    k->len = (uint8_t)(prefix_len + 16);
    return k + 1;
}

size_t bsf_index_keys(const bsf_pcf_binding_t *b, const bsf_binding_id_t *id,
                      bsf_index_key_t *out)
{
    bsf_index_key_t *k = out;
    if (b->has_ipv4)
        k = push(k, BSF_INDEX_IPV4, bsf_index_ipv4_prefix(&b->ipv4, k->key), id);
    for (size_t i = 0; i < b->n_ipv4_routes; i++)
        k = push(k, BSF_INDEX_IPV4_ROUTE,
                 bsf_index_ipv4_route_prefix(b->ipv4_routes[i].b, b->ipv4_routes[i].len, k->key),
                 id);
    if (b->has_ipv6)
        k = push(k, BSF_INDEX_IPV6, bsf_index_ipv6_prefix(b->ipv6.b, b->ipv6.len, k->key), id);
    for (size_t i = 0; i < b->n_add_ipv6; i++)
        k = push(k, BSF_INDEX_IPV6,
                 bsf_index_ipv6_prefix(b->add_ipv6[i].b, b->add_ipv6[i].len, k->key), id);
    for (size_t i = 0; i < b->n_ipv6_routes; i++)
        k = push(k, BSF_INDEX_IPV6,
                 bsf_index_ipv6_prefix(b->ipv6_routes[i].b, b->ipv6_routes[i].len, k->key), id);
    if (b->has_mac)
        k = push(k, BSF_INDEX_MAC, bsf_index_mac_prefix(&b->mac, k->key), id);
    for (size_t i = 0; i < b->n_add_mac; i++)
        k = push(k, BSF_INDEX_MAC, bsf_index_mac_prefix(&b->add_mac[i], k->key), id);
    if (b->supi)
        k = push(k, BSF_INDEX_SUPI, bsf_index_text_prefix(b->supi, k->key), id);
    if (b->gpsi)
        k = push(k, BSF_INDEX_GPSI, bsf_index_text_prefix(b->gpsi, k->key), id);
    if (b->dnn && b->has_snssai)
        k = push(k, BSF_INDEX_DNN, bsf_index_dnn_prefix(b->dnn, &b->snssai, k->key), id);
    return (size_t)(k - out);
}
