/* UE address of an AAR into a discovery query. */
#include "gateways/diameter/rx_ue_addr.h"

#include <string.h>

bsf_rx_ue_verdict_t bsf_rx_ue_ipv6_prefix_decode(const uint8_t *d, size_t n,
                                                 bsf_ipv6_prefix_t *out)
{
    if (n < 2 || n > 18)
        return BSF_RX_UE_BAD_LENGTH;
    unsigned len = d[1];
    if (len > 128)
        return BSF_RX_UE_BAD_VALUE;
    size_t need = (len + 7) / 8;
    if (n - 2 < need)
        return BSF_RX_UE_BAD_LENGTH;
    memset(out, 0, sizeof *out);
    memcpy(out->b, d + 2, n - 2);
    out->len = (uint8_t)len;
    /* The same canonical prefix as the SBI's: bits past the length are not the UE's. */
    bsf_prefix_mask(out->b, 16, len, out->b);
    return BSF_RX_UE_OK;
}

bsf_rx_ue_verdict_t bsf_rx_ue_query_build(const bsf_rx_ue_avps_t *a, bsf_discovery_query_t *q,
                                          int *bad_ipv6)
{
    memset(q, 0, sizeof *q);
    *bad_ipv6 = 0;
    q->dnn = a->dnn && a->dnn[0] ? a->dnn : NULL;
    if (a->ipv4) {
        if (a->ipv4_len != 4)
            return BSF_RX_UE_BAD_LENGTH;
        q->kind = BSF_UE_ADDR_IPV4;
        memcpy(q->ipv4.b, a->ipv4, 4);
        q->ip_domain = a->ip_domain && a->ip_domain[0] ? a->ip_domain : NULL;
        return BSF_RX_UE_OK;
    }
    if (a->ipv6) {
        *bad_ipv6 = 1;
        bsf_rx_ue_verdict_t v = bsf_rx_ue_ipv6_prefix_decode(a->ipv6, a->ipv6_len, &q->ipv6);
        if (v != BSF_RX_UE_OK)
            return v;
        q->kind = BSF_UE_ADDR_IPV6;
        /* An Rx prefix names the UE's prefix (usually /64); a /128 would be the address. */
        return BSF_RX_UE_OK;
    }
    return BSF_RX_UE_MISSING;
}
