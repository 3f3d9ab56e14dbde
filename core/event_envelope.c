/* Reading the envelope of an encoded event without unpacking its payload: the shipper looks
 * at every event of the log (its own and the other sites') and only needs who wrote it. The
 * payload members are stepped over (their structure checked, nothing allocated); an envelope
 * member that appears twice makes the event unreadable. */
#include "core/event.h"

#include <stdio.h>
#include <string.h>

#include "core/msgpack_guard.h"

typedef struct {
    const uint8_t *p;
    size_t len, pos;
} cursor_t;

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Reads a container or scalar header with a fixed-width count or value. */
static bool take(cursor_t *c, unsigned n, uint64_t *v)
{
    if (c->len - c->pos < n)
        return false;
    *v = be(c->p + c->pos, n);
    c->pos += n;
    return true;
}

static bool read_map_size(cursor_t *c, uint64_t *n)
{
    if (c->pos >= c->len)
        return false;
    uint8_t t = c->p[c->pos++];
    if (t >= 0x80 && t <= 0x8f) {
        *n = t & 0x0f;
        return true;
    }
    return (t == 0xde && take(c, 2, n)) || (t == 0xdf && take(c, 4, n));
}

/* A string: its bytes in place. */
static bool read_str(cursor_t *c, const char **s, size_t *n)
{
    if (c->pos >= c->len)
        return false;
    uint8_t t = c->p[c->pos++];
    uint64_t len;
    if (t >= 0xa0 && t <= 0xbf)
        len = t & 0x1f;
    else if (!((t == 0xd9 && take(c, 1, &len)) || (t == 0xda && take(c, 2, &len)) ||
               (t == 0xdb && take(c, 4, &len))))
        return false;
    if (len > c->len - c->pos)
        return false;
    *s = (const char *)c->p + c->pos;
    *n = (size_t)len;
    c->pos += (size_t)len;
    return true;
}

static bool read_uint(cursor_t *c, uint64_t *v)
{
    if (c->pos >= c->len)
        return false;
    uint8_t t = c->p[c->pos++];
    if (t <= 0x7f) {
        *v = t;
        return true;
    }
    switch (t) {
    case 0xcc: return take(c, 1, v);
    case 0xcd: return take(c, 2, v);
    case 0xce: return take(c, 4, v);
    case 0xcf: return take(c, 8, v);
    default: return false;
    }
}

static bool skip_value(cursor_t *c)
{
    size_t n = bsf_msgpack_object_len((const char *)c->p + c->pos, c->len - c->pos, 16);
    c->pos += n;
    return n > 0;
}

static bool is(const char *s, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(s, name, n) == 0;
}

int bsf_event_decode_envelope(const char *buf, size_t len, bsf_event_t *out)
{
    cursor_t c = {(const uint8_t *)buf, len, 0};
    uint64_t members, version = 0, site = 0;
    unsigned seen = 0;
    memset(out, 0, sizeof *out);
    out->origin_ts_ms = out->sender_ts_ms = -1;
    if (!read_map_size(&c, &members))
        return -1;
    for (uint64_t i = 0; i < members; i++) {
        const char *key, *s;
        size_t klen, slen;
        unsigned bit = 0;
        bool ok;
        if (!read_str(&c, &key, &klen))
            return -1;
        if (is(key, klen, "v")) {
            ok = read_uint(&c, &version);
            bit = 32;
        } else if (is(key, klen, "type")) {
            ok = read_str(&c, &s, &slen);
            ok = ok && bsf_event_type_parse(s, slen, &out->type);
            bit = 1;
        } else if (is(key, klen, "site")) {
            ok = read_uint(&c, &site) && site <= UINT16_MAX;
            out->site = (uint16_t)site;
            bit = 2;
        } else if (is(key, klen, "seq")) {
            ok = read_uint(&c, &out->seq);
            bit = 4;
        } else if (is(key, klen, "hlc")) {
            ok = read_uint(&c, &out->hlc);
            bit = 8;
        } else if (is(key, klen, "bindingId")) {
            ok = read_str(&c, &s, &slen) && bsf_binding_id_parse(s, slen, &out->binding_id);
            bit = 16;
        } else {
            ok = skip_value(&c);
        }
        if (!ok || (seen & bit))
            return -1; /* a bad or repeated envelope member */
        seen |= bit;
    }
    bool known = version >= BSF_EVENT_VERSION_OLDEST && version <= bsf_event_newest_read();
    return known && seen == 63 ? 0 : -1;
}

int bsf_event_peek_version(const char *buf, size_t len, uint64_t *version)
{
    cursor_t c = {(const uint8_t *)buf, len, 0};
    uint64_t members;
    if (!read_map_size(&c, &members))
        return -1;
    for (uint64_t i = 0; i < members; i++) {
        const char *key;
        size_t klen;
        if (!read_str(&c, &key, &klen))
            return -1;
        if (is(key, klen, "v"))
            return read_uint(&c, version) ? 0 : -1;
        if (!skip_value(&c))
            return -1;
    }
    return -1;
}
