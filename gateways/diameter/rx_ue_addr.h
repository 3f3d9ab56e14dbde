/* The UE address of an AAR as a discovery query: Framed-IP-Address (4 octets) or
 * Framed-IPv6-Prefix (RFC 3162: reserved, prefix length, prefix octets), narrowed by
 * IP-Domain-Id (IPv4 only) and by Called-Station-Id as the DNN. Pure. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_UE_ADDR_H
#define BSF_GATEWAYS_DIAMETER_RX_UE_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "core/discovery.h"

typedef enum {
    BSF_RX_UE_OK = 0,
    BSF_RX_UE_MISSING,     /* no UE address: 5005 DIAMETER_MISSING_AVP */
    BSF_RX_UE_BAD_LENGTH,  /* 5014 DIAMETER_INVALID_AVP_LENGTH */
    BSF_RX_UE_BAD_VALUE,   /* 5004 DIAMETER_INVALID_AVP_VALUE */
} bsf_rx_ue_verdict_t;

/* Decodes Framed-IPv6-Prefix bytes. */
bsf_rx_ue_verdict_t bsf_rx_ue_ipv6_prefix_decode(const uint8_t *d, size_t n,
                                                 bsf_ipv6_prefix_t *out);

typedef struct {
    const uint8_t *ipv4; /* Framed-IP-Address value, or NULL */
    size_t ipv4_len;
    const uint8_t *ipv6; /* Framed-IPv6-Prefix value, or NULL */
    size_t ipv6_len;
    const char *ip_domain; /* NUL-terminated, or NULL */
    const char *dnn;
} bsf_rx_ue_avps_t;

/* Fills a discovery query (IPv4 preferred when both are present). *bad_ipv6 tells which AVP
 * a BAD_* verdict is about. The query's strings point into `a`. */
bsf_rx_ue_verdict_t bsf_rx_ue_query_build(const bsf_rx_ue_avps_t *a, bsf_discovery_query_t *q,
                                          int *bad_ipv6);

#endif
