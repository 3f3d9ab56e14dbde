#include "core/msgpack_guard.h"

#include <stdint.h>

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Reads one object header at p: how many bytes the header and any payload take (`skip`) and
 * how many child objects follow (`children`: 1 per array element, 2 per map entry). */
static bool header(const uint8_t *p, size_t avail, uint64_t *skip, uint64_t *children)
{
    uint8_t t = p[0];
    unsigned n;
    *children = 0;
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
        *skip = 1;
        return true;
    }
    if (t >= 0x80 && t <= 0x8f) {
        *skip = 1;
        *children = 2u * (t & 0x0f);
        return true;
    }
    if (t >= 0x90 && t <= 0x9f) {
        *skip = 1;
        *children = t & 0x0f;
        return true;
    }
    if (t >= 0xa0 && t <= 0xbf) {
        *skip = 1u + (t & 0x1f);
        return true;
    }
    switch (t) {
    case 0xc4: case 0xc5: case 0xc6: /* bin 8/16/32 */
    case 0xd9: case 0xda: case 0xdb: /* str 8/16/32 */
        n = t <= 0xc6 ? 1u << (t - 0xc4) : 1u << (t - 0xd9);
        if (avail < 1 + n)
            return false;
        *skip = 1 + n + be(p + 1, n);
        return true;
    case 0xc7: case 0xc8: case 0xc9: /* ext 8/16/32: length, type, data */
        n = 1u << (t - 0xc7);
        if (avail < 1 + n)
            return false;
        *skip = 2 + n + be(p + 1, n);
        return true;
    case 0xca: *skip = 5; return true;
    case 0xcb: *skip = 9; return true;
    case 0xcc: case 0xd0: *skip = 2; return true;
    case 0xcd: case 0xd1: *skip = 3; return true;
    case 0xce: case 0xd2: *skip = 5; return true;
    case 0xcf: case 0xd3: *skip = 9; return true;
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: /* fixext */
        *skip = 2 + (1u << (t - 0xd4));
        return true;
    case 0xdc: case 0xdd: case 0xde: case 0xdf: /* array 16/32, map 16/32 */
        n = (t == 0xdc || t == 0xde) ? 2 : 4;
        if (avail < 1 + n)
            return false;
        *skip = 1 + n;
        *children = be(p + 1, n) * (t >= 0xde ? 2 : 1);
        return true;
    default: /* 0xc1 is never used */
        return false;
    }
}

size_t bsf_msgpack_object_len(const char *buf, size_t len, unsigned max_depth)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint64_t pending[64]; /* objects still to read at each open level */
    if (max_depth > 63)
        max_depth = 63;
    unsigned depth = 0;
    pending[0] = 1;
    size_t pos = 0;
    while (depth > 0 || pending[0] > 0) {
        if (pending[depth] == 0) {
            depth--;
            continue;
        }
        if (pos >= len)
            return 0;
        uint64_t skip, children;
        if (!header(p + pos, len - pos, &skip, &children) || skip > len - pos)
            return 0;
        pos += skip;
        pending[depth]--;
        if (children) {
            /* Each child needs at least one byte: refuse impossible sizes up front. */
            if (children > len - pos || depth + 1 > max_depth)
                return 0;
            pending[++depth] = children;
        }
    }
    return pos;
}

bool bsf_msgpack_well_formed(const char *buf, size_t len, unsigned max_depth)
{
    return len > 0 && bsf_msgpack_object_len(buf, len, max_depth) == len;
}
