/* Text forms of the NF profile's settings; see nrf_formats.h. */
#include "gateways/nrf/nrf_formats.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

int bsf_nrf_parse_plmn(const char *s, bsf_nrf_plmn_t *out)
{
    const char *dash = strchr(s, '-');
    if (!dash || dash - s != 3 || !digits(s, 3))
        return -1;
    size_t mnc = strlen(dash + 1);
    if (mnc < 2 || mnc > 3 || !digits(dash + 1, mnc))
        return -1;
    memcpy(out->mcc, s, 3);
    out->mcc[3] = '\0';
    memcpy(out->mnc, dash + 1, mnc + 1);
    return 0;
}

int bsf_nrf_parse_snssai(const char *s, bsf_nrf_snssai_t *out)
{
    const char *dash = strchr(s, '-');
    size_t n = dash ? (size_t)(dash - s) : strlen(s);
    if (n == 0 || n > 3 || !digits(s, n))
        return -1;
    out->sst = atoi(s);
    if (out->sst > 255)
        return -1;
    out->sd[0] = '\0';
    if (!dash)
        return 0;
    if (strlen(dash + 1) != 6)
        return -1;
    for (int i = 0; i < 6; i++) {
        if (!isxdigit((unsigned char)dash[1 + i]))
            return -1;
        out->sd[i] = (char)toupper((unsigned char)dash[1 + i]);
    }
    out->sd[6] = '\0';
    return 0;
}

/* Splits "a-b" at its only '-' into a and b (each shorter than cap). */
static int split(const char *s, char *a, char *b, size_t cap)
{
    const char *dash = strchr(s, '-');
    if (!dash || strchr(dash + 1, '-') || (size_t)(dash - s) >= cap ||
        strlen(dash + 1) >= cap)
        return -1;
    memcpy(a, s, (size_t)(dash - s));
    a[dash - s] = '\0';
    strcpy(b, dash + 1);
    return 0;
}

int bsf_nrf_parse_ipv4_range(const char *s, char start[16], char end[16])
{
    struct in_addr x, y;
    if (split(s, start, end, 16) || inet_pton(AF_INET, start, &x) != 1 ||
        inet_pton(AF_INET, end, &y) != 1 || ntohl(x.s_addr) > ntohl(y.s_addr))
        return -1;
    return 0;
}

static bool ipv6_prefix_valid(const char *p)
{
    char addr[64];
    const char *slash = strchr(p, '/');
    if (!slash || (size_t)(slash - p) >= sizeof addr || !slash[1] ||
        strlen(slash + 1) > 3 || !digits(slash + 1, strlen(slash + 1)) || atoi(slash + 1) > 128)
        return false;
    memcpy(addr, p, (size_t)(slash - p));
    addr[slash - p] = '\0';
    struct in6_addr a;
    return inet_pton(AF_INET6, addr, &a) == 1;
}

int bsf_nrf_parse_ipv6_range(const char *s, char start[64], char end[64])
{
    if (split(s, start, end, 64) || !ipv6_prefix_valid(start) || !ipv6_prefix_valid(end))
        return -1;
    return 0;
}

bool bsf_nrf_nf_type_valid(const char *s)
{
    static const char *const types[] = {
        "NRF", "UDM", "AMF", "SMF", "AUSF", "NEF", "PCF", "SMSF", "NSSF", "UDR", "LMF",
        "GMLC", "5G_EIR", "SEPP", "UPF", "N3IWF", "AF", "UDSF", "BSF", "CHF", "NWDAF", "PCSCF",
        "CBCF", "HSS", "UCMF", "SOR_AF", "SPAF", "MME", "SCSAS", "SCEF", "SCP", "NSSAAF",
        "ICSCF", "SCSCF", "DRA", "IMS_AS", "AANF", "5G_DDNMF", "NSACF", "MFAF", "EASDF",
        "DCCF", "MB_SMF", "TSCTSF", "ADRF", "GBA_BSF", "CEF", "MB_UPF", "NSWOF", "PKMF",
        "MNPF", "SMS_GMSC", "SMS_IWMSC", "MBSF", "MBSTF", "PANF", "IP_SM_GW", "SMS_ROUTER"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(s, types[i]) == 0)
            return true;
    return false;
}
