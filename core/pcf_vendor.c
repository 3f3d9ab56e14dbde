#include "core/pcf_vendor.h"

#include <stdio.h>
#include <string.h>

bool bsf_pcf_vendor_url_ok(const char *s, size_t n)
{
    if (n == 0 || n > BSF_NOTIFICATION_URL_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~')
            return false;
    size_t skip = n >= 7 && memcmp(s, "http://", 7) == 0    ? 7
                  : n >= 8 && memcmp(s, "https://", 8) == 0 ? 8
                                                            : 0;
    return skip && skip < n && s[skip] != '/'; /* an authority follows the scheme */
}

static int fail(bsf_member_ctx_t *c, const char *ptr, const char *member, const char *why)
{
    char p[96];
    snprintf(p, sizeof p, "%s/%s", ptr, member);
    return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, p, "%s", why);
}

static int vendor_member(bsf_member_ctx_t *c, const msgpack_object_kv *kv, const char *ptr,
                         bsf_pcf_vendor_t *out)
{
    char key[32];
    const msgpack_object *v = &kv->val;
    if (!bsf_member_key(&kv->key, key, sizeof key))
        return 0;
    if (strcmp(key, "version") == 0) {
        if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > UINT32_MAX)
            return fail(c, ptr, key, "must be a non-negative integer");
        out->has_version = true;
        out->version = (uint32_t)v->via.u64;
        return 0;
    }
    bool url = strcmp(key, "notificationUrl") == 0;
    if (!url && strcmp(key, "createBindingTime") != 0)
        return 0; /* unknown members are ignored */
    if (v->type != MSGPACK_OBJECT_STR)
        return fail(c, ptr, key, "must be a string");
    const char *s = v->via.str.ptr;
    size_t n = v->via.str.size;
    if (url && !bsf_pcf_vendor_url_ok(s, n))
        return fail(c, ptr, key, "must be an absolute http:// or https:// URI");
    if (!url && !bsf_text_is_date_time(s, n))
        return fail(c, ptr, key, "must be an RFC 3339 date-time");
    const char *copy = bsf_member_strndup(c->zone, s, n);
    if (!copy) {
        bsf_problem_set(c->problem, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        return -1;
    }
    *(url ? &out->notification_url : &out->create_binding_time) = copy;
    return 0;
}

int bsf_pcf_vendor_decode(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_pcf_vendor_t *out)
{
    memset(out, 0, sizeof *out);
    if (o->type != MSGPACK_OBJECT_MAP)
        return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                "must be an object");
    for (uint32_t i = 0; i < o->via.map.size; i++)
        if (vendor_member(c, &o->via.map.ptr[i], ptr, out))
            return -1;
    out->present = true;
    return 0;
}

static int pack_kv(msgpack_packer *pk, const char *k, const char *v)
{
    size_t kn = strlen(k), vn = strlen(v);
    return msgpack_pack_str(pk, kn) || msgpack_pack_str_body(pk, k, kn) ||
           msgpack_pack_str(pk, vn) || msgpack_pack_str_body(pk, v, vn);
}

int bsf_pcf_vendor_encode(const bsf_pcf_vendor_t *v, msgpack_packer *pk)
{
    size_t n = v->has_version + (v->notification_url != NULL) + (v->create_binding_time != NULL);
    if (msgpack_pack_map(pk, n))
        return -1;
    if (v->has_version && (msgpack_pack_str(pk, 7) || msgpack_pack_str_body(pk, "version", 7) ||
                           msgpack_pack_uint32(pk, v->version)))
        return -1;
    if (v->notification_url && pack_kv(pk, "notificationUrl", v->notification_url))
        return -1;
    return v->create_binding_time && pack_kv(pk, "createBindingTime", v->create_binding_time);
}
