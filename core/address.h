/* UE and PCF address types of TS 29.571 and their canonical text forms.
 *
 * Parsers take (text, length) because values come from msgpack strings that are not
 * NUL-terminated. Each parser accepts exactly the forms the 3GPP OpenAPI patterns allow and
 * returns false otherwise; formatters write the canonical form. */
#ifndef BSF_CORE_ADDRESS_H
#define BSF_CORE_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t b[4];
} bsf_ipv4_t;

/* An IPv6 prefix. The parser zeroes the host bits (canonical form: 2001:db8::1/64 is
 * 2001:db8::/64); matching masks them anyway, for prefixes built by other code. */
typedef struct {
    uint8_t b[16];
    uint8_t len; /* 0..128 */
} bsf_ipv6_prefix_t;

/* An IPv4 route (Ipv4AddrMask): address and prefix length 0..32. */
typedef struct {
    uint8_t b[4];
    uint8_t len;
} bsf_ipv4_mask_t;

typedef struct {
    uint8_t b[6];
} bsf_mac48_t;

/* Longest canonical texts including the NUL. */
#define BSF_IPV4_TEXT_MAX 16
#define BSF_IPV6_TEXT_MAX 50 /* 45 for the address, "/128", NUL */
#define BSF_MAC48_TEXT_MAX 18

bool bsf_ipv4_parse(const char *s, size_t n, bsf_ipv4_t *out);
bool bsf_ipv6_addr_parse(const char *s, size_t n, uint8_t out[16]);
/* Also refuses a length with a leading zero ("/064"); zeroes the host bits. */
bool bsf_ipv6_prefix_parse(const char *s, size_t n, bsf_ipv6_prefix_t *out);
bool bsf_ipv4_mask_parse(const char *s, size_t n, bsf_ipv4_mask_t *out);
bool bsf_mac48_parse(const char *s, size_t n, bsf_mac48_t *out);

/* Formatters return the text length (excluding the NUL). IPv6 is RFC 5952 §4 text, never the
 * mixed IPv4 notation (::ffff:a00:1, not ::ffff:10.0.0.1). */
size_t bsf_ipv4_format(const bsf_ipv4_t *a, char out[BSF_IPV4_TEXT_MAX]);
size_t bsf_ipv6_addr_format(const uint8_t a[16], char out[BSF_IPV6_TEXT_MAX]);
size_t bsf_ipv6_prefix_format(const bsf_ipv6_prefix_t *p, char out[BSF_IPV6_TEXT_MAX]);
size_t bsf_ipv4_mask_format(const bsf_ipv4_mask_t *m, char out[BSF_IPV6_TEXT_MAX]);
size_t bsf_mac48_format(const bsf_mac48_t *m, char out[BSF_MAC48_TEXT_MAX]);

/* Copies the first `len` bits of `in` to `out` and zeroes the rest (len <= 8 * n). */
void bsf_prefix_mask(const uint8_t *in, size_t n, unsigned len, uint8_t *out);

/* True when prefix `outer` contains prefix or address `inner` (outer->len <= inner->len and
 * the first outer->len bits are equal). */
bool bsf_ipv6_prefix_contains(const bsf_ipv6_prefix_t *outer, const bsf_ipv6_prefix_t *inner);
bool bsf_ipv4_mask_contains(const bsf_ipv4_mask_t *outer, const bsf_ipv4_t *addr);

#endif
