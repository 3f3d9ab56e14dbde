/* Text forms of the NF profile's settings, parsed: PLMN "mcc-mnc", S-NSSAI "sst[-sd]",
 * IPv4 ranges "start-end", IPv6 prefix ranges "start-end", NF types. Pure. */
#ifndef BSF_GATEWAYS_NRF_NRF_FORMATS_H
#define BSF_GATEWAYS_NRF_NRF_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    char mcc[4], mnc[4];
} bsf_nrf_plmn_t;

typedef struct {
    int sst;     /* 0..255 */
    char sd[7];  /* 6 hex digits (upper case), empty when absent */
} bsf_nrf_snssai_t;

/* Each returns 0, or -1 when the text is not of the form. */
int bsf_nrf_parse_plmn(const char *s, bsf_nrf_plmn_t *out);
int bsf_nrf_parse_snssai(const char *s, bsf_nrf_snssai_t *out);
/* "10.0.0.0-10.0.255.255": start <= end, both dotted quads (copied into start/end). */
int bsf_nrf_parse_ipv4_range(const char *s, char start[16], char end[16]);
/* "2001:db8::/48-2001:db8:ff::/48": two IPv6 prefixes (copied into start/end). */
int bsf_nrf_parse_ipv6_range(const char *s, char start[64], char end[64]);
/* One of TS 29.510's NFType names (upper case, e.g. PCF, AF, NEF). */
bool bsf_nrf_nf_type_valid(const char *s);

#endif
