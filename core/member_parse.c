#include "core/member_parse.h"

#include "core/bytes.h"

#include <string.h>

/* The JSON pointer `ptr` + "/" + `suffix` in `out` (BSF_PROBLEM_PARAM_MAX bytes, truncated):
 * by hand, because it runs for every nested member of every binding decoded, stored ones
 * included, and snprintf cost more than the member's own check. */
static void ptr_join(char *out, const char *ptr, const char *suffix)
{
    size_t a = strnlen(ptr, BSF_PROBLEM_PARAM_MAX - 2);
    size_t b = strnlen(suffix, BSF_PROBLEM_PARAM_MAX - 2 - a);
    memcpy(out, ptr, a);
    out[a] = '/';
    memcpy(out + a + 1, suffix, b);
    out[a + 1 + b] = '\0';
}

/* `ptr` + "/" + the array index `i`. */
static void ptr_index(char *out, const char *ptr, uint32_t i)
{
    char digits[11], *d = digits + sizeof digits;
    *--d = '\0';
    do
        *--d = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    ptr_join(out, ptr, d);
}

bool bsf_member_key(const msgpack_object *key, char *out, size_t cap)
{
    if (key->type != MSGPACK_OBJECT_STR || key->via.str.size >= cap)
        return false;
    if (key->via.str.size) /* an empty string may have a NULL pointer */
        memcpy(out, key->via.str.ptr, key->via.str.size);
    out[key->via.str.size] = '\0';
    return true;
}

int bsf_member_decode_object(const msgpack_object *map, bsf_member_ctx_t *c,
                             bsf_member_decode_fn decode, void *out)
{
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(c->problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "the body must be a JSON object");
        return -1;
    }
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        char key[32];
        if (bsf_member_key(&kv->key, key, sizeof key) && decode(c, key, &kv->val, out))
            return -1;
    }
    return 0;
}

int bsf_member_decode_zeroed(const msgpack_object *map, msgpack_zone *zone,
                             bsf_problem_t *problem, bsf_member_decode_fn decode, void *out,
                             size_t size)
{
    memset(out, 0, size);
    bsf_member_ctx_t c = {zone, problem};
    return bsf_member_decode_object(map, &c, decode, out);
}

static const char *type_name(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return "null";
    case MSGPACK_OBJECT_BOOLEAN:
        return "boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return "number";
    case MSGPACK_OBJECT_STR:
        return "string";
    case MSGPACK_OBJECT_ARRAY:
        return "array";
    case MSGPACK_OBJECT_MAP:
        return "object";
    default:
        return "binary";
    }
}

static int want_type(bsf_member_ctx_t *c, const msgpack_object *o, msgpack_object_type t,
                     const char *ptr, bsf_cause_t cause, const char *what)
{
    if (o->type == t)
        return 0;
    return bsf_problem_fail(c->problem, cause, ptr, "must be %s, not %s", what, type_name(o));
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool is_hex(char ch)
{
    return bsf_hex_value(ch) >= 0;
}

static bool printable_identity(const char *s, size_t n)
{
    if (n == 0 || n > BSF_MAX_IDENTITY_LEN)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch <= 0x20 || ch == 0x7f)
            return false;
    }
    return true;
}

static bool prefixed_digits(const char *s, size_t n, const char *prefix, bool *has_prefix)
{
    size_t pn = strlen(prefix);
    *has_prefix = n >= pn && memcmp(s, prefix, pn) == 0;
    if (!*has_prefix)
        return true;
    size_t dn = n - pn;
    return dn >= 5 && dn <= 15 && all_digits(s + pn, dn);
}

bool bsf_text_is_fqdn(const char *s, size_t n)
{
    if (n < 4 || n > 253)
        return false;
    if (s[n - 1] == '.')
        n--;
    size_t labels = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        size_t len = i - start;
        if (len == 0 || len > 63)
            return false;
        const char *l = s + start;
        for (size_t k = 0; k < len; k++) {
            char ch = l[k];
            bool alnum = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
                         (ch >= 'A' && ch <= 'Z');
            if (!alnum && !(ch == '-' && k > 0 && k + 1 < len))
                return false;
        }
        labels++;
        if (i == n) {
            /* The last label is the TLD: letters only, at least two. */
            if (len < 2)
                return false;
            for (size_t k = 0; k < len; k++)
                if (!((l[k] >= 'a' && l[k] <= 'z') || (l[k] >= 'A' && l[k] <= 'Z')))
                    return false;
        }
        start = i + 1;
    }
    return labels >= 2;
}

static bool is_uuid(const char *s, size_t n)
{
    if (n != 36)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i]))
            return false;
    }
    return true;
}

static bool digits_in(const char *s, size_t n, unsigned lo, unsigned hi)
{
    if (!all_digits(s, n))
        return false;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    return v >= lo && v <= hi;
}

bool bsf_text_is_date_time(const char *s, size_t n)
{
    /* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
    if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
        s[16] != ':')
        return false;
    if (!digits_in(s, 4, 0, 9999) || !digits_in(s + 5, 2, 1, 12) || !digits_in(s + 8, 2, 1, 31) ||
        !digits_in(s + 11, 2, 0, 23) || !digits_in(s + 14, 2, 0, 59) ||
        !digits_in(s + 17, 2, 0, 60))
        return false;
    size_t i = 19;
    if (i < n && s[i] == '.') {
        size_t start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start || i - start > 9)
            return false;
    }
    if (i < n && (s[i] == 'Z' || s[i] == 'z'))
        return i + 1 == n;
    if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':')
        return digits_in(s + i + 1, 2, 0, 23) && digits_in(s + i + 4, 2, 0, 59);
    return false;
}

static bool text_ok(bsf_text_kind_t kind, const char *s, size_t n, const char **why)
{
    bool prefixed;
    switch (kind) {
    case BSF_TEXT_IDENTITY:
        *why = "must be 1..128 printable characters without spaces";
        return printable_identity(s, n);
    case BSF_TEXT_SUPI:
        *why = "must be a SUPI (imsi-<5..15 digits>, nai-..., gci-..., gli-...)";
        return printable_identity(s, n) && prefixed_digits(s, n, "imsi-", &prefixed);
    case BSF_TEXT_GPSI:
        *why = "must be a GPSI (msisdn-<5..15 digits>, extid-...)";
        return printable_identity(s, n) && prefixed_digits(s, n, "msisdn-", &prefixed);
    case BSF_TEXT_FQDN:
        *why = "must be an FQDN of 4..253 characters";
        return bsf_text_is_fqdn(s, n);
    case BSF_TEXT_UUID:
        *why = "must be a UUID";
        return is_uuid(s, n);
    case BSF_TEXT_DATE_TIME:
        *why = "must be an RFC 3339 date-time";
        return bsf_text_is_date_time(s, n);
    case BSF_TEXT_HEX:
        *why = "must be at most 64 hexadecimal digits";
        if (n > 64)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!is_hex(s[i]))
                return false;
        return true;
    }
    *why = "unknown format";
    return false;
}

const char *bsf_member_strndup(msgpack_zone *zone, const char *s, size_t n)
{
    char *p = msgpack_zone_malloc(zone, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static int out_of_memory(bsf_member_ctx_t *c)
{
    bsf_problem_set(c->problem, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
    return -1;
}

int bsf_member_text(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                    bsf_cause_t cause, bsf_text_kind_t kind, const char **out)
{
    if (want_type(c, o, MSGPACK_OBJECT_STR, ptr, cause, "a string"))
        return -1;
    const char *why;
    if (!text_ok(kind, o->via.str.ptr, o->via.str.size, &why) ||
        memchr(o->via.str.ptr, '\0', o->via.str.size))
        return bsf_problem_fail(c->problem, cause, ptr, "%s", why);
    *out = bsf_member_strndup(c->zone, o->via.str.ptr, o->via.str.size);
    return *out ? 0 : out_of_memory(c);
}

int bsf_member_ipv4(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                    bsf_cause_t cause, bsf_ipv4_t *out)
{
    if (want_type(c, o, MSGPACK_OBJECT_STR, ptr, cause, "a string"))
        return -1;
    if (!bsf_ipv4_parse(o->via.str.ptr, o->via.str.size, out))
        return bsf_problem_fail(c->problem, cause, ptr, "must be a dotted-decimal IPv4 address");
    return 0;
}

int bsf_member_ipv6_prefix(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                           bsf_cause_t cause, bsf_ipv6_prefix_t *out)
{
    if (want_type(c, o, MSGPACK_OBJECT_STR, ptr, cause, "a string"))
        return -1;
    if (!bsf_ipv6_prefix_parse(o->via.str.ptr, o->via.str.size, out))
        return bsf_problem_fail(c->problem, cause, ptr,
                                "must be an IPv6 prefix such as 2001:db8::/64");
    return 0;
}

int bsf_member_mac(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                   bsf_cause_t cause, bsf_mac48_t *out)
{
    if (want_type(c, o, MSGPACK_OBJECT_STR, ptr, cause, "a string"))
        return -1;
    if (!bsf_mac48_parse(o->via.str.ptr, o->via.str.size, out))
        return bsf_problem_fail(c->problem, cause, ptr,
                                "must be a MAC address such as 00-1a-2b-3c-4d-5e");
    return 0;
}

int bsf_member_snssai(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                      bsf_cause_t cause, bsf_snssai_t *out)
{
    char p[BSF_PROBLEM_PARAM_MAX];
    if (want_type(c, o, MSGPACK_OBJECT_MAP, ptr, cause, "an object"))
        return -1;
    bool has_sst = false;
    out->has_sd = false;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object_kv *kv = &o->via.map.ptr[i];
        char key[8];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            continue;
        if (strcmp(key, "sst") == 0) {
            ptr_join(p, ptr, "sst");
            if (kv->val.type != MSGPACK_OBJECT_POSITIVE_INTEGER || kv->val.via.u64 > 255)
                return bsf_problem_fail(c->problem, cause, p, "must be an integer 0..255");
            out->sst = (uint8_t)kv->val.via.u64;
            has_sst = true;
        } else if (strcmp(key, "sd") == 0) {
            ptr_join(p, ptr, "sd");
            const msgpack_object *v = &kv->val;
            bool ok = v->type == MSGPACK_OBJECT_STR && v->via.str.size == 6;
            uint32_t sd = 0;
            for (uint32_t k = 0; ok && k < 6; k++) {
                int d = bsf_hex_value(v->via.str.ptr[k]);
                ok = d >= 0;
                sd = sd << 4 | (uint32_t)(ok ? d : 0);
            }
            if (!ok)
                return bsf_problem_fail(c->problem, cause, p, "must be 6 hexadecimal digits");
            out->has_sd = true;
            out->sd = sd;
        }
    }
    if (!has_sst) {
        ptr_join(p, ptr, "sst");
        return bsf_problem_fail(c->problem, cause, p, "is missing");
    }
    return 0;
}

/* Reads one array item into `slot`. */
typedef int (*item_reader_fn)(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                              bsf_cause_t cause, void *slot);

static void *zone_array(msgpack_zone *zone, size_t n, size_t size)
{
    void *p = msgpack_zone_malloc(zone, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

/* The shape every array member shares: type, 1..max items, one reader per item. */
static int read_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                      bsf_cause_t cause, size_t max, size_t item_size, item_reader_fn read_item,
                      void **out, size_t *n)
{
    if (want_type(c, o, MSGPACK_OBJECT_ARRAY, ptr, cause, "an array"))
        return -1;
    if (o->via.array.size == 0)
        return bsf_problem_fail(c->problem, cause, ptr, "must have at least one item");
    if (o->via.array.size > max)
        return bsf_problem_fail(c->problem, cause, ptr, "must have at most %zu items", max);
    char *items = zone_array(c->zone, o->via.array.size, item_size);
    if (!items)
        return out_of_memory(c);
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        char p[BSF_PROBLEM_PARAM_MAX];
        ptr_index(p, ptr, i);
        if (read_item(c, &o->via.array.ptr[i], p, cause, items + i * item_size))
            return -1;
    }
    *out = items;
    *n = o->via.array.size;
    return 0;
}

static int ipv6_item(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                     bsf_cause_t cause, void *slot)
{
    return bsf_member_ipv6_prefix(c, o, ptr, cause, slot);
}

static int mac_item(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                    bsf_cause_t cause, void *slot)
{
    return bsf_member_mac(c, o, ptr, cause, slot);
}

static int ipv4_mask_item(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_cause_t cause, void *slot)
{
    if (want_type(c, o, MSGPACK_OBJECT_STR, ptr, cause, "a string"))
        return -1;
    if (!bsf_ipv4_mask_parse(o->via.str.ptr, o->via.str.size, slot))
        return bsf_problem_fail(c->problem, cause, ptr,
                                "must be an IPv4 address mask such as 198.51.0.0/16");
    return 0;
}

int bsf_member_ipv6_prefix_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                                 bsf_cause_t cause, size_t max, bsf_ipv6_prefix_t **out,
                                 size_t *n)
{
    return read_array(c, o, ptr, cause, max, sizeof **out, ipv6_item, (void **)out, n);
}

int bsf_member_mac_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                         bsf_cause_t cause, bsf_mac48_t **out, size_t *n)
{
    return read_array(c, o, ptr, cause, BSF_MAX_ADD_ADDRESSES, sizeof **out, mac_item,
                      (void **)out, n);
}

int bsf_member_ipv4_mask_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                               bsf_cause_t cause, bsf_ipv4_mask_t **out, size_t *n)
{
    return read_array(c, o, ptr, cause, BSF_MAX_FRAME_ROUTES, sizeof **out, ipv4_mask_item,
                      (void **)out, n);
}

static int end_point_member(bsf_member_ctx_t *c, const msgpack_object_kv *kv, const char *ptr,
                            bsf_cause_t cause, bsf_ip_end_point_t *ep)
{
    char key[16], p[BSF_PROBLEM_PARAM_MAX];
    if (!bsf_member_key(&kv->key, key, sizeof key))
        return 0;
    ptr_join(p, ptr, key);
    const msgpack_object *v = &kv->val;
    if (strcmp(key, "ipv4Address") == 0) {
        ep->has_ipv4 = true;
        return bsf_member_ipv4(c, v, p, cause, &ep->ipv4);
    }
    if (strcmp(key, "ipv6Address") == 0) {
        if (want_type(c, v, MSGPACK_OBJECT_STR, p, cause, "a string"))
            return -1;
        if (!bsf_ipv6_addr_parse(v->via.str.ptr, v->via.str.size, ep->ipv6))
            return bsf_problem_fail(c->problem, cause, p, "must be an IPv6 address");
        ep->has_ipv6 = true;
        return 0;
    }
    if (strcmp(key, "transport") == 0)
        return bsf_member_text(c, v, p, cause, BSF_TEXT_IDENTITY, &ep->transport);
    if (strcmp(key, "port") == 0) {
        if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > 65535)
            return bsf_problem_fail(c->problem, cause, p, "must be an integer 0..65535");
        ep->has_port = true;
        ep->port = (uint16_t)v->via.u64;
    }
    return 0;
}

static int end_point_item(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_cause_t cause, void *slot)
{
    bsf_ip_end_point_t *ep = slot;
    if (want_type(c, o, MSGPACK_OBJECT_MAP, ptr, cause, "an object"))
        return -1;
    for (uint32_t k = 0; k < o->via.map.size; k++)
        if (end_point_member(c, &o->via.map.ptr[k], ptr, cause, ep))
            return -1;
    if (ep->has_ipv4 && ep->has_ipv6)
        return bsf_problem_fail(c->problem, cause, ptr,
                                "must not carry both ipv4Address and ipv6Address");
    return 0;
}

int bsf_member_end_points(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_cause_t cause, bsf_ip_end_points_t *out)
{
    return read_array(c, o, ptr, cause, BSF_MAX_END_POINTS, sizeof *out->items, end_point_item,
                      (void **)&out->items, &out->n);
}

int bsf_member_para_com(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                        bsf_cause_t cause, bsf_para_com_t *out)
{
    if (want_type(c, o, MSGPACK_OBJECT_MAP, ptr, cause, "an object"))
        return -1;
    memset(out, 0, sizeof *out);
    out->present = true;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object_kv *kv = &o->via.map.ptr[i];
        char key[8], p[BSF_PROBLEM_PARAM_MAX];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            continue;
        ptr_join(p, ptr, key);
        int rc = 0;
        if (strcmp(key, "supi") == 0)
            rc = bsf_member_text(c, &kv->val, p, cause, BSF_TEXT_SUPI, &out->supi);
        else if (strcmp(key, "dnn") == 0)
            rc = bsf_member_text(c, &kv->val, p, cause, BSF_TEXT_IDENTITY, &out->dnn);
        else if (strcmp(key, "snssai") == 0) {
            rc = bsf_member_snssai(c, &kv->val, p, cause, &out->snssai);
            out->has_snssai = rc == 0;
        }
        if (rc)
            return -1;
    }
    return 0;
}

int bsf_member_pcf_address_missing(bsf_problem_t *problem, const char *fqdn,
                                   const char *end_points)
{
    char detail[BSF_PROBLEM_TEXT_MAX], a[BSF_PROBLEM_PARAM_MAX], b[BSF_PROBLEM_PARAM_MAX];
    snprintf(detail, sizeof detail, "a PCF address is missing: %s or %s is required", fqdn,
             end_points);
    snprintf(a, sizeof a, "/%s", fqdn);
    snprintf(b, sizeof b, "/%s", end_points);
    return bsf_problem_fail_none_of(problem, BSF_CAUSE_MANDATORY_IE_MISSING, detail,
                                    "one PCF address is required",
                                    (const char *const[]){a, b, NULL});
}
