#include "projections/record.h"

#include <errno.h>

#include "core/bytes.h"
#include "common/compress.h"

int bsf_record_parse(const void *value, size_t len, bsf_record_t *out)
{
    const uint8_t *p = value;
    if (len < BSF_RECORD_HEADER_DEAD || p[0] != BSF_RECORD_FORMAT)
        return -1;
    out->state = p[1];
    out->site = (uint16_t)(p[2] << 8 | p[3]);
    out->hlc = bsf_get_be64(p + 4);
    out->created_hlc = 0;
    out->origin_ts_ms = out->sender_ts_ms = -1;
    out->binding = NULL;
    out->binding_len = 0;
    if (out->state == BSF_RECORD_DEAD)
        return len == BSF_RECORD_HEADER_DEAD ? 0 : -1;
    if (out->state != BSF_RECORD_LIVE || len <= BSF_RECORD_HEADER_LIVE)
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

size_t bsf_record_write_header(const bsf_record_t *r, uint8_t *out)
{
    out[0] = BSF_RECORD_FORMAT;
    out[1] = r->state;
    out[2] = (uint8_t)(r->site >> 8);
    out[3] = (uint8_t)r->site;
    bsf_put_be64(out + 4, r->hlc);
    if (r->state == BSF_RECORD_DEAD)
        return BSF_RECORD_HEADER_DEAD;
    bsf_put_be64(out + 12, r->created_hlc);
    bsf_put_be64(out + 20, (uint64_t)r->origin_ts_ms);
    bsf_put_be64(out + 28, (uint64_t)r->sender_ts_ms);
    out[36] = (uint8_t)(r->cookie_len >> 8);
    out[37] = (uint8_t)r->cookie_len;
    return BSF_RECORD_HEADER_LIVE;
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

int bsf_record_detach(bsf_record_t *r, bool exists, msgpack_sbuffer *copy)
{
    msgpack_sbuffer_init(copy);
    if (!exists || r->state != BSF_RECORD_LIVE)
        return 0;
    if (msgpack_sbuffer_write(copy, r->binding, r->binding_len))
        return -ENOMEM;
    r->binding = copy->data;
    return 0;
}
