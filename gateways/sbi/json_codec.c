#include "gateways/sbi/json_codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msgpack document -> JSON text (json_codec.h); the other direction is json_parse.c. */

static int put(msgpack_sbuffer *out, const char *s, size_t n)
{
    return n ? msgpack_sbuffer_write(out, s, n) : 0;
}

/* Room for `need` more bytes (grown as msgpack_sbuffer_write grows it: realloc, doubling). */
static int reserve(msgpack_sbuffer *out, size_t need)
{
    if (out->alloc - out->size >= need)
        return 0;
    size_t cap = out->alloc ? out->alloc * 2 : MSGPACK_SBUFFER_INIT_SIZE;
    while (cap - out->size < need)
        cap *= 2;
    char *p = realloc(out->data, cap);
    if (!p)
        return -1;
    out->data = p;
    out->alloc = cap;
    return 0;
}

/* In one pass into room reserved for the worst case (every byte as \u00XX): a write per run
 * of plain bytes cost a third of rendering a binding. */
static int put_string(msgpack_sbuffer *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (n > (SIZE_MAX - 2) / 6 || reserve(out, n * 6 + 2))
        return -1;
    char *d = out->data + out->size;
    *d++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *d++ = (char)c;
        } else if (c == '"' || c == '\\') {
            *d++ = '\\';
            *d++ = (char)c;
        } else {
            memcpy(d, "\\u00", 4);
            d[4] = hex[c >> 4];
            d[5] = hex[c & 15];
            d += 6;
        }
    }
    *d++ = '"';
    out->size = (size_t)(d - out->data);
    return 0;
}

static bool skipped(const msgpack_object *key, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (key->via.str.size == strlen(*skip) &&
            memcmp(key->via.str.ptr, *skip, key->via.str.size) == 0)
            return true;
    return false;
}

static bool is_supp_feat(const msgpack_object *key)
{
    return key->via.str.size == 8 && memcmp(key->via.str.ptr, "suppFeat", 8) == 0;
}

/* Decimal digits of v, by hand: snprintf was a tenth of rendering a binding. */
static int put_u64(msgpack_sbuffer *out, uint64_t v, bool negative)
{
    char num[24], *d = num + sizeof num;
    do
        *--d = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (negative)
        *--d = '-';
    return put(out, d, (size_t)(num + sizeof num - d));
}

static int write_value(const msgpack_object *o, msgpack_sbuffer *out, const char *const *skip,
                       const char *supp_feat, int depth)
{
    char num[40];
    int n;
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return put(out, "null", 4);
    case MSGPACK_OBJECT_BOOLEAN:
        return o->via.boolean ? put(out, "true", 4) : put(out, "false", 5);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return put_u64(out, o->via.u64, false);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        /* -(i64 + 1) + 1 avoids overflowing on INT64_MIN */
        return put_u64(out, (uint64_t)(-(o->via.i64 + 1)) + 1, true);
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        n = snprintf(num, sizeof num, "%.17g", o->via.f64);
        return put(out, num, (size_t)n);
    case MSGPACK_OBJECT_STR:
        return put_string(out, o->via.str.ptr, o->via.str.size);
    case MSGPACK_OBJECT_ARRAY:
        if (put(out, "[", 1))
            return -1;
        for (uint32_t i = 0; i < o->via.array.size; i++)
            if ((i && put(out, ",", 1)) ||
                write_value(&o->via.array.ptr[i], out, NULL, NULL, depth + 1))
                return -1;
        return put(out, "]", 1);
    case MSGPACK_OBJECT_MAP: {
        if (put(out, "{", 1))
            return -1;
        bool first = true, feat_done = false;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR || (depth == 0 && skipped(&kv->key, skip)))
                continue;
            if (!first && put(out, ",", 1))
                return -1;
            first = false;
            if (put_string(out, kv->key.via.str.ptr, kv->key.via.str.size) || put(out, ":", 1))
                return -1;
            if (depth == 0 && supp_feat && is_supp_feat(&kv->key)) {
                feat_done = true;
                if (put_string(out, supp_feat, strlen(supp_feat)))
                    return -1;
            } else if (write_value(&kv->val, out, NULL, NULL, depth + 1)) {
                return -1;
            }
        }
        if (depth == 0 && supp_feat && !feat_done &&
            (put(out, first ? "\"suppFeat\":" : ",\"suppFeat\":", first ? 11 : 12) ||
             put_string(out, supp_feat, strlen(supp_feat))))
            return -1;
        return put(out, "}", 1);
    }
    default:
        return -1;
    }
}

int bsf_json_write(const msgpack_object *obj, msgpack_sbuffer *out, const char *const *skip,
                   const char *supp_feat)
{
    return write_value(obj, out, skip, supp_feat, 0);
}
