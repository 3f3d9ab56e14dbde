/* libFuzzer target: the text forms of the NF profile's settings (PLMN, S-NSSAI, IPv4 and
 * IPv6 prefix ranges, NF types, UUIDs) and the SCP's Server header check. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/nrf/nrf_formats.h"
#include "gateways/nrf/nrf_settings.h"
#include "gateways/sbi/scp_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[512];
    size_t n = size < sizeof s - 1 ? size : sizeof s - 1;
    memcpy(s, data, n);
    s[n] = '\0';
    bsf_nrf_plmn_t p;
    if (bsf_nrf_parse_plmn(s, &p) == 0 && (strlen(p.mcc) != 3 || strlen(p.mnc) < 2))
        abort();
    bsf_nrf_snssai_t sn;
    if (bsf_nrf_parse_snssai(s, &sn) == 0 && (sn.sst < 0 || sn.sst > 255))
        abort();
    char a[64], b[64];
    (void)bsf_nrf_parse_ipv4_range(s, a, b);
    (void)bsf_nrf_parse_ipv6_range(s, a, b);
    (void)bsf_nrf_nf_type_valid(s);
    (void)bsf_nrf_uuid_valid(s);
    (void)bsf_scp_server_names_scp(s, "scp1.example.org");
    return 0;
}
