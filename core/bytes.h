/* Small byte helpers shared by the codecs: big-endian integers and hex digits. */
#ifndef BSF_CORE_BYTES_H
#define BSF_CORE_BYTES_H

#include <stdint.h>

static inline void bsf_put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint64_t bsf_get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* The value of a hexadecimal digit of either case, or -1. */
static inline int bsf_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
