#include "projections/record.h"

#include <errno.h>
#include <lmdb.h>

#include "core/bytes.h"
#include "common/compress.h"

#define FLAG_CREATED 1u /* created HLC differs from the HLC: 8 bytes */
#define FLAG_ORIGIN 2u  /* origin timestamp: 8 bytes */
#define FLAG_SENDER 4u  /* sender timestamp: 8 bytes */
#define FLAG_COOKIE 8u  /* cookie: u16 length, then the bytes */

/* The live part of a format-2 value after its 12 common bytes. */
static int parse_fixed_live(const uint8_t *p, size_t len, bsf_record_t *out)
{
    if (len <= BSF_RECORD_HEADER_LIVE)
        return -1;
    out->created_hlc = bsf_get_be64(p + 12);
    out->origin_ts_ms = (int64_t)bsf_get_be64(p + 20);
    out->sender_ts_ms = (int64_t)bsf_get_be64(p + 28);
    out->cookie_len = (size_t)(p[36] << 8 | p[37]);
    if (len <= BSF_RECORD_HEADER_LIVE + out->cookie_len)
        return -1;
    out->cookie = (const char *)p + BSF_RECORD_HEADER_LIVE;
    out->binding = out->cookie + out->cookie_len;
    out->binding_len = len - BSF_RECORD_HEADER_LIVE - out->cookie_len;
    return 0;
}

/* The live part of a format-3 value after its 12 common bytes. */
static int parse_compact_live(const uint8_t *p, size_t len, bsf_record_t *out)
{
    size_t off = 13;
    if (len <= off || (p[12] & ~0xfu))
        return -1;
    unsigned flags = p[12];
    size_t need = off + (flags & FLAG_CREATED ? 8 : 0) + (flags & FLAG_ORIGIN ? 8 : 0) +
                  (flags & FLAG_SENDER ? 8 : 0) + (flags & FLAG_COOKIE ? 2 : 0);
    if (len <= need)
        return -1;
    out->created_hlc = out->hlc;
    if (flags & FLAG_CREATED)
        out->created_hlc = bsf_get_be64(p + off), off += 8;
    if (flags & FLAG_ORIGIN)
        out->origin_ts_ms = (int64_t)bsf_get_be64(p + off), off += 8;
    if (flags & FLAG_SENDER)
        out->sender_ts_ms = (int64_t)bsf_get_be64(p + off), off += 8;
    out->cookie_len = 0;
    if (flags & FLAG_COOKIE) {
        out->cookie_len = (size_t)(p[off] << 8 | p[off + 1]);
        off += 2;
        if (!out->cookie_len || len <= off + out->cookie_len)
            return -1;
    }
    out->cookie = (const char *)p + off;
    out->binding = out->cookie + out->cookie_len;
    out->binding_len = len - off - out->cookie_len;
    return 0;
}

int bsf_record_parse(const void *value, size_t len, bsf_record_t *out)
{
    const uint8_t *p = value;
    if (len < BSF_RECORD_HEADER_DEAD ||
        (p[0] != BSF_RECORD_FORMAT && p[0] != BSF_RECORD_FORMAT_FIXED))
        return -1;
    out->state = p[1];
    out->site = (uint16_t)(p[2] << 8 | p[3]);
    out->hlc = bsf_get_be64(p + 4);
    out->created_hlc = 0;
    out->origin_ts_ms = out->sender_ts_ms = -1;
    out->cookie = NULL;
    out->cookie_len = 0;
    out->binding = NULL;
    out->binding_len = 0;
    if (out->state == BSF_RECORD_DEAD)
        return len == BSF_RECORD_HEADER_DEAD ? 0 : -1;
    if (out->state != BSF_RECORD_LIVE)
        return -1;
    return p[0] == BSF_RECORD_FORMAT_FIXED ? parse_fixed_live(p, len, out)
                                           : parse_compact_live(p, len, out);
}

static void put_common(const bsf_record_t *r, uint8_t format, uint8_t *out)
{
    out[0] = format;
    out[1] = r->state;
    out[2] = (uint8_t)(r->site >> 8);
    out[3] = (uint8_t)r->site;
    bsf_put_be64(out + 4, r->hlc);
}

size_t bsf_record_write_fixed_header(const bsf_record_t *r, uint8_t *out)
{
    put_common(r, BSF_RECORD_FORMAT_FIXED, out);
    if (r->state == BSF_RECORD_DEAD)
        return BSF_RECORD_HEADER_DEAD;
    bsf_put_be64(out + 12, r->created_hlc);
    bsf_put_be64(out + 20, (uint64_t)r->origin_ts_ms);
    bsf_put_be64(out + 28, (uint64_t)r->sender_ts_ms);
    out[36] = (uint8_t)(r->cookie_len >> 8);
    out[37] = (uint8_t)r->cookie_len;
    return BSF_RECORD_HEADER_LIVE;
}

size_t bsf_record_write_header(const bsf_record_t *r, uint8_t *out)
{
    put_common(r, BSF_RECORD_FORMAT, out);
    if (r->state == BSF_RECORD_DEAD)
        return BSF_RECORD_HEADER_DEAD;
    size_t off = 13;
    unsigned flags = 0;
    if (r->created_hlc != r->hlc)
        flags |= FLAG_CREATED, bsf_put_be64(out + off, r->created_hlc), off += 8;
    if (r->origin_ts_ms != -1)
        flags |= FLAG_ORIGIN, bsf_put_be64(out + off, (uint64_t)r->origin_ts_ms), off += 8;
    if (r->sender_ts_ms != -1)
        flags |= FLAG_SENDER, bsf_put_be64(out + off, (uint64_t)r->sender_ts_ms), off += 8;
    if (r->cookie_len) {
        flags |= FLAG_COOKIE;
        out[off] = (uint8_t)(r->cookie_len >> 8);
        out[off + 1] = (uint8_t)r->cookie_len;
        off += 2;
    }
    out[12] = (uint8_t)flags;
    return off;
}

void bsf_record_write(const bsf_record_t *r, msgpack_sbuffer *out)
{
    uint8_t header[BSF_RECORD_HEADER_MAX];
    size_t hlen = bsf_record_write_header(r, header);
    msgpack_sbuffer_clear(out);
    msgpack_sbuffer_write(out, (const char *)header, hlen);
    if (r->state == BSF_RECORD_LIVE) {
        if (r->cookie_len)
            msgpack_sbuffer_write(out, r->cookie, r->cookie_len);
        msgpack_sbuffer_write(out, r->binding, r->binding_len);
    }
}

int bsf_record_version_cmp(uint64_t a_hlc, uint16_t a_site, uint64_t b_hlc, uint16_t b_site)
{
    if (a_hlc != b_hlc)
        return a_hlc > b_hlc ? 1 : -1;
    return (int)a_site - (int)b_site;
}

int bsf_record_binding_msgpack(const bsf_record_t *r, msgpack_zone *zone, const char **mp,
                               size_t *len)
{
    if (r->state != BSF_RECORD_LIVE)
        return -1;
    return bsf_compress_unpack(r->binding, r->binding_len, zone, mp, len);
}

int bsf_record_detach(int lookup_rc, bsf_record_t *r, bool *exists, msgpack_sbuffer *copy)
{
    msgpack_sbuffer_init(copy);
    *exists = lookup_rc == 0;
    if (lookup_rc && lookup_rc != MDB_NOTFOUND)
        return lookup_rc;
    if (!*exists || r->state != BSF_RECORD_LIVE)
        return 0;
    if (msgpack_sbuffer_write(copy, r->binding, r->binding_len))
        return -ENOMEM;
    r->binding = copy->data;
    return 0;
}

bool bsf_record_deregistration_applies(const bsf_record_t *cur, bool exists, uint64_t hlc,
                                       uint16_t site)
{
    return !(exists && cur->state == BSF_RECORD_DEAD &&
             bsf_record_version_cmp(cur->hlc, cur->site, hlc, site) >= 0);
}

bool bsf_record_version_applies(const bsf_record_t *cur, bool exists, uint64_t hlc,
                                uint16_t site)
{
    if (!exists)
        return true;
    return cur->state != BSF_RECORD_DEAD &&
           bsf_record_version_cmp(cur->hlc, cur->site, hlc, site) < 0;
}
