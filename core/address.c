#include "core/address.h"

#include "core/bytes.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* One decimal octet as the Ipv4Addr pattern allows it: 0..255 without leading zeros. */
static bool parse_octet(const char **p, const char *end, uint8_t *out)
{
    const char *s = *p;
    unsigned v = 0;
    size_t digits = 0;
    while (s < end && *s >= '0' && *s <= '9' && digits < 4) {
        v = v * 10 + (unsigned)(*s - '0');
        s++;
        digits++;
    }
    if (digits == 0 || digits > 3 || v > 255 || (digits > 1 && **p == '0'))
        return false;
    *out = (uint8_t)v;
    *p = s;
    return true;
}

static bool parse_ipv4_at(const char **p, const char *end, uint8_t out[4])
{
    for (int i = 0; i < 4; i++) {
        if (i > 0) {
            if (*p >= end || **p != '.')
                return false;
            (*p)++;
        }
        if (!parse_octet(p, end, &out[i]))
            return false;
    }
    return true;
}

bool bsf_ipv4_parse(const char *s, size_t n, bsf_ipv4_t *out)
{
    const char *p = s, *end = s + n;
    return parse_ipv4_at(&p, end, out->b) && p == end;
}

bool bsf_ipv6_addr_parse(const char *s, size_t n, uint8_t out[16])
{
    char buf[INET6_ADDRSTRLEN];
    if (n == 0 || n >= sizeof buf || memchr(s, '\0', n))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return inet_pton(AF_INET6, buf, out) == 1;
}

/* "/len" with 1..3 decimal digits, no leading zero (one text per length), up to max. */
static bool parse_prefix_len(const char *s, const char *end, unsigned max, uint8_t *out)
{
    if (s >= end || *s != '/')
        return false;
    s++;
    size_t digits = (size_t)(end - s);
    if (digits == 0 || digits > 3 || (digits > 1 && *s == '0'))
        return false;
    unsigned v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (unsigned)(*s - '0');
    }
    if (v > max)
        return false;
    *out = (uint8_t)v;
    return true;
}

bool bsf_ipv6_prefix_parse(const char *s, size_t n, bsf_ipv6_prefix_t *out)
{
    const char *slash = memchr(s, '/', n);
    if (!slash)
        return false;
    if (!bsf_ipv6_addr_parse(s, (size_t)(slash - s), out->b) ||
        !parse_prefix_len(slash, s + n, 128, &out->len))
        return false;
    /* Canonical: the host bits are zeroed, so equal prefixes have equal bytes and text. */
    bsf_prefix_mask(out->b, 16, out->len, out->b);
    return true;
}

bool bsf_ipv4_mask_parse(const char *s, size_t n, bsf_ipv4_mask_t *out)
{
    const char *p = s, *end = s + n;
    return parse_ipv4_at(&p, end, out->b) && parse_prefix_len(p, end, 32, &out->len);
}

bool bsf_mac48_parse(const char *s, size_t n, bsf_mac48_t *out)
{
    if (n != 17)
        return false;
    for (int i = 0; i < 6; i++) {
        if (i > 0 && s[3 * i - 1] != '-')
            return false;
        int hi = bsf_hex_value(s[3 * i]), lo = bsf_hex_value(s[3 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

/* Decimal octet without leading zeros; returns the characters written. */
static size_t put_octet(char *out, unsigned v)
{
    size_t n = 0;
    if (v >= 100)
        out[n++] = (char)('0' + v / 100);
    if (v >= 10)
        out[n++] = (char)('0' + v / 10 % 10);
    out[n++] = (char)('0' + v % 10);
    return n;
}

/* By hand rather than snprintf: every stored binding and discovery answer formats some. */
size_t bsf_ipv4_format(const bsf_ipv4_t *a, char out[BSF_IPV4_TEXT_MAX])
{
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        if (i)
            out[n++] = '.';
        n += put_octet(out + n, a->b[i]);
    }
    out[n] = '\0';
    return n;
}

/* The longest run of two or more zero groups (the first on a tie); *len 0 when none. */
static void longest_zero_run(const uint8_t a[16], int *start, int *len)
{
    *start = -1;
    *len = 0;
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && a[2 * j] == 0 && a[2 * j + 1] == 0)
            j++;
        if (j - i >= 2 && j - i > *len) {
            *start = i;
            *len = j - i;
        }
        i = j > i ? j : i + 1;
    }
}

static size_t put_hex_group(char *out, unsigned v)
{
    static const char digits[] = "0123456789abcdef";
    size_t n = 0;
    for (int shift = 12; shift >= 0; shift -= 4)
        if ((v >> shift) || shift == 0 || n)
            out[n++] = digits[(v >> shift) & 15];
    return n;
}

/* RFC 5952 §4 by hand: lowercase, no leading zeros, the longest zero run compressed. Never
 * the mixed IPv4 notation of §5 (glibc's inet_ntop writes ::ffff:10.0.0.1), which the
 * TS 29.571 Ipv6Addr and Ipv6Prefix patterns do not allow. */
size_t bsf_ipv6_addr_format(const uint8_t a[16], char out[BSF_IPV6_TEXT_MAX])
{
    int run, run_len;
    longest_zero_run(a, &run, &run_len);
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (i == run) {
            out[n++] = ':';
            if (i == 0)
                out[n++] = ':';
            i += run_len - 1;
            continue;
        }
        n += put_hex_group(out + n, (unsigned)a[2 * i] << 8 | a[2 * i + 1]);
        if (i < 7)
            out[n++] = ':';
    }
    out[n] = '\0';
    return n;
}

size_t bsf_ipv6_prefix_format(const bsf_ipv6_prefix_t *p, char out[BSF_IPV6_TEXT_MAX])
{
    size_t n = bsf_ipv6_addr_format(p->b, out);
    return n + (size_t)snprintf(out + n, BSF_IPV6_TEXT_MAX - n, "/%u", p->len);
}

size_t bsf_ipv4_mask_format(const bsf_ipv4_mask_t *m, char out[BSF_IPV6_TEXT_MAX])
{
    return (size_t)snprintf(out, BSF_IPV6_TEXT_MAX, "%u.%u.%u.%u/%u", m->b[0], m->b[1],
                            m->b[2], m->b[3], m->len);
}

size_t bsf_mac48_format(const bsf_mac48_t *m, char out[BSF_MAC48_TEXT_MAX])
{
    return (size_t)snprintf(out, BSF_MAC48_TEXT_MAX, "%02x-%02x-%02x-%02x-%02x-%02x", m->b[0],
                            m->b[1], m->b[2], m->b[3], m->b[4], m->b[5]);
}

void bsf_prefix_mask(const uint8_t *in, size_t n, unsigned len, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        unsigned bits = len > 8 * i ? len - 8 * (unsigned)i : 0;
        uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff00u >> bits);
        out[i] = in[i] & mask;
    }
}

bool bsf_ipv6_prefix_contains(const bsf_ipv6_prefix_t *outer, const bsf_ipv6_prefix_t *inner)
{
    if (outer->len > inner->len)
        return false;
    uint8_t a[16], b[16];
    bsf_prefix_mask(outer->b, 16, outer->len, a);
    bsf_prefix_mask(inner->b, 16, outer->len, b);
    return memcmp(a, b, 16) == 0;
}

bool bsf_ipv4_mask_contains(const bsf_ipv4_mask_t *outer, const bsf_ipv4_t *addr)
{
    uint8_t a[4], b[4];
    bsf_prefix_mask(outer->b, 4, outer->len, a);
    bsf_prefix_mask(addr->b, 4, outer->len, b);
    return memcmp(a, b, 4) == 0;
}
