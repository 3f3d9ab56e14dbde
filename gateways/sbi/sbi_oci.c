/* TS 29.500 OCI and LCI header values (see sbi_oci.h). */
#include "gateways/sbi/sbi_oci.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sbi_time.h"
#include "gateways/sbi/sbi_headers.h"

size_t bsf_sbi_oci_format(uint64_t ts_ms, uint32_t validity_s, unsigned metric,
                          const char *nf_instance_id, char *out, size_t cap)
{
    char ts[BSF_SBI_TIME_HEADER_MAX];
    if (!bsf_sbi_time_format_header((int64_t)ts_ms, ts))
        return 0;
    int n = snprintf(out, cap, "Timestamp: \"%s\"; Validity: %u; Metric: %u%%; NFInst: %s", ts,
                     validity_s, metric, nf_instance_id);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t bsf_sbi_lci_format(uint64_t ts_ms, unsigned metric, const char *nf_instance_id,
                          char *out, size_t cap)
{
    char ts[BSF_SBI_TIME_HEADER_MAX];
    if (!bsf_sbi_time_format_header((int64_t)ts_ms, ts))
        return 0;
    int n = snprintf(out, cap, "Timestamp: \"%s\"; Metric: %u%%; NFInst: %s", ts, metric,
                     nf_instance_id);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* A decimal number of at most `digits` digits in [p, end). -1 when there is none. */
static long decimal(const char *p, const char *end, int digits)
{
    long v = 0;
    int n = 0;
    for (; p < end; p++, n++) {
        if (*p < '0' || *p > '9' || n == digits)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return n ? v : -1;
}

static const char *const scopes[] = {"NFInst",       "NFSet", "NFService", "NFServiceSet",
                                     "CallbackUri",  "SCP",   "SEPP"};

/* One "Name: value" parameter in [p, end), spaces trimmed. Returns 0, or -1. */
static int parameter(const char *p, const char *end, bsf_sbi_oci_t *o, unsigned *seen)
{
    while (p < end && *p == ' ')
        p++;
    while (end > p && end[-1] == ' ')
        end--;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon)
        return -1;
    size_t nlen = (size_t)(colon - p);
    const char *v = colon + 1;
    while (v < end && *v == ' ')
        v++;
    if (nlen == 9 && strncasecmp(p, "Timestamp", 9) == 0) {
        if (end - v < 2 || *v != '"' || end[-1] != '"')
            return -1;
        o->ts_ms = bsf_sbi_time_parse(v + 1, (size_t)(end - v - 2));
        *seen |= o->ts_ms >= 0 ? 1u : 0u;
        return o->ts_ms >= 0 ? 0 : -1;
    }
    if (nlen == 8 && strncasecmp(p, "Validity", 8) == 0) {
        long s = decimal(v, end, 9);
        o->validity_s = s >= 0 ? (uint32_t)s : 0;
        *seen |= s >= 0 ? 2u : 0u;
        return s >= 0 ? 0 : -1;
    }
    if (nlen == 6 && strncasecmp(p, "Metric", 6) == 0) {
        long m = end > v && end[-1] == '%' ? decimal(v, end - 1, 3) : -1;
        o->metric = m >= 0 && m <= 100 ? (unsigned)m : 0;
        *seen |= m >= 0 && m <= 100 ? 4u : 0u;
        return m >= 0 && m <= 100 ? 0 : -1;
    }
    for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
        if (strlen(scopes[i]) == nlen && strncasecmp(p, scopes[i], nlen) == 0) {
            size_t vlen = (size_t)(end - v);
            if (*seen & 8u)
                return 0; /* the first scope is the one kept (S-NSSAI/DNN are finer ones) */
            if (!vlen || vlen >= sizeof o->scope)
                return -1;
            memcpy(o->scope_kind, scopes[i], nlen + 1);
            memcpy(o->scope, v, vlen);
            o->scope[vlen] = '\0';
            *seen |= 8u;
            return 0;
        }
    return 0; /* other parameters (S-NSSAI, DNN, ...) are not used */
}

int bsf_sbi_oci_parse(const char *value, size_t len, bsf_sbi_oci_t *out)
{
    memset(out, 0, sizeof *out);
    /* A field value is visible characters, spaces and tabs (RFC 9110 §5.5): a NUL or another
     * control byte is refused, so that no parameter is cut short by one. */
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)value[i] < 0x20 && value[i] != '\t') || value[i] == 0x7f)
            return -1;
    unsigned seen = 0;
    const char *p = value, *end = value + len;
    while (p < end) {
        /* ';' inside the quoted timestamp does not occur (IMF-fixdate has none). */
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;
        if (parameter(p, stop, out, &seen))
            return -1;
        p = semi ? semi + 1 : end;
    }
    return seen == 15u ? 0 : -1;
}
