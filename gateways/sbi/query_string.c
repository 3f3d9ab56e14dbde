#include "gateways/sbi/query_string.h"

#include <errno.h>
#include <string.h>

#include "core/bytes.h"
#include "gateways/sbi/json_codec.h"

long bsf_percent_decode(const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '%') {
            if (i + 2 >= n)
                return -1;
            int hi = bsf_hex_value(in[i + 1]), lo = bsf_hex_value(in[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                return -1;
            out[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[o++] = c == '+' ? ' ' : c;
        }
    }
    return (long)o;
}

int bsf_query_iter_init(bsf_query_iter_t *it, const char *query, size_t len, msgpack_zone *zone)
{
    /* Each value decodes to at most its encoded length, and its terminator takes the place of
     * the '&' or the name before it, so the query's length + 1 holds them all. */
    *it = (bsf_query_iter_t){.query = query, .len = len, .buf = msgpack_zone_malloc(zone, len + 1)};
    return it->buf ? 0 : -ENOMEM;
}

bool bsf_query_next(bsf_query_iter_t *it, bsf_query_item_t *item)
{
    while (it->pos < it->len) {
        const char *start = it->query + it->pos;
        const char *amp = memchr(start, '&', it->len - it->pos);
        size_t item_len = amp ? (size_t)(amp - start) : it->len - it->pos;
        it->pos += item_len + 1;
        if (item_len == 0)
            continue;
        const char *eq = memchr(start, '=', item_len);
        size_t name_len = eq ? (size_t)(eq - start) : item_len;
        long nd = name_len < sizeof item->name ? bsf_percent_decode(start, name_len, item->name)
                                               : -1;
        item->name_ok = nd >= 0 && (size_t)nd < sizeof item->name;
        item->name[item->name_ok ? nd : 0] = '\0';
        item->raw = eq ? eq + 1 : start + item_len;
        item->raw_len = eq ? item_len - name_len - 1 : 0;
        return true;
    }
    return false;
}

long bsf_query_value(bsf_query_iter_t *it, const bsf_query_item_t *item, char **value)
{
    long n = bsf_percent_decode(item->raw, item->raw_len, it->buf);
    if (n < 0)
        return -1;
    it->buf[n] = '\0';
    *value = it->buf;
    it->buf += n + 1;
    return n;
}

int bsf_query_json_member(const char *v, size_t n, msgpack_zone *zone, const char *ptr,
                          bsf_cause_t cause, const char *must_be, bsf_query_member_fn decode,
                          void *out, bsf_problem_t *problem)
{
    msgpack_sbuffer buf;
    msgpack_object obj;
    msgpack_sbuffer_init(&buf);
    int rc = bsf_json_to_msgpack(v, n, &buf, zone, &obj, problem);
    if (rc == 0) {
        bsf_member_ctx_t c = {zone, problem};
        rc = decode(&c, &obj, ptr, cause, out);
    } else {
        rc = bsf_problem_fail(problem, cause, ptr, "%s", must_be);
    }
    msgpack_sbuffer_destroy(&buf); /* after the decode: obj's strings point into it */
    return rc;
}
