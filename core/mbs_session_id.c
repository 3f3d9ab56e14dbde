#include "core/mbs_session_id.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static bool hex_text(const msgpack_object *o, size_t n, char *out)
{
    if (o->type != MSGPACK_OBJECT_STR || o->via.str.size != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = o->via.str.ptr[i];
        if (!isxdigit((unsigned char)ch))
            return false;
        out[i] = (char)toupper((unsigned char)ch);
    }
    out[n] = '\0';
    return true;
}

static bool digits(const msgpack_object *o, size_t min, size_t max, char *out)
{
    if (o->type != MSGPACK_OBJECT_STR || o->via.str.size < min || o->via.str.size > max)
        return false;
    for (size_t i = 0; i < o->via.str.size; i++)
        if (o->via.str.ptr[i] < '0' || o->via.str.ptr[i] > '9')
            return false;
    memcpy(out, o->via.str.ptr, o->via.str.size);
    out[o->via.str.size] = '\0';
    return true;
}

/* The member `name` of map `o`, or NULL. */
static const msgpack_object *member(const msgpack_object *o, const char *name)
{
    size_t n = strlen(name);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
            memcmp(k->via.str.ptr, name, n) == 0)
            return &o->via.map.ptr[i].val;
    }
    return NULL;
}

static int fail(bsf_member_ctx_t *c, bsf_cause_t cause, const char *ptr, const char *sub,
                const char *why)
{
    char p[BSF_PROBLEM_PARAM_MAX];
    snprintf(p, sizeof p, "%s%s", ptr, sub);
    return bsf_problem_fail(c->problem, cause, p, "%s", why);
}

static int decode_tmgi(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                       bsf_cause_t cause, bsf_mbs_session_id_t *out)
{
    const msgpack_object *svc = member(o, "mbsServiceId"), *plmn = member(o, "plmnId");
    if (!svc || !hex_text(svc, 6, out->mbs_service_id))
        return fail(c, cause, ptr, "/tmgi/mbsServiceId", "must be 6 hexadecimal digits");
    if (!plmn || plmn->type != MSGPACK_OBJECT_MAP)
        return fail(c, cause, ptr, "/tmgi/plmnId", "must be a PlmnId object");
    const msgpack_object *mcc = member(plmn, "mcc"), *mnc = member(plmn, "mnc");
    if (!mcc || !digits(mcc, 3, 3, out->mcc))
        return fail(c, cause, ptr, "/tmgi/plmnId/mcc", "must be 3 digits");
    if (!mnc || !digits(mnc, 2, 3, out->mnc))
        return fail(c, cause, ptr, "/tmgi/plmnId/mnc", "must be 2 or 3 digits");
    out->has_tmgi = true;
    return 0;
}

static bool ip_addr(const msgpack_object *o, bsf_ip_addr_t *out)
{
    if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size != 1)
        return false; /* oneOf: exactly one member */
    const msgpack_object *v4 = member(o, "ipv4Addr"), *v6 = member(o, "ipv6Addr"),
                         *pfx = member(o, "ipv6Prefix");
    const msgpack_object *v = v4 ? v4 : v6 ? v6 : pfx;
    if (!v || v->type != MSGPACK_OBJECT_STR)
        return false;
    const char *s = v->via.str.ptr;
    size_t n = v->via.str.size;
    if (v4) {
        out->kind = BSF_IP_ADDR_V4;
        return bsf_ipv4_parse(s, n, &out->v4);
    }
    if (v6) {
        out->kind = BSF_IP_ADDR_V6;
        out->v6.len = 128;
        return bsf_ipv6_addr_parse(s, n, out->v6.b);
    }
    out->kind = BSF_IP_ADDR_V6_PREFIX;
    return bsf_ipv6_prefix_parse(s, n, &out->v6);
}

static int decode_ssm(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                      bsf_cause_t cause, bsf_mbs_session_id_t *out)
{
    const msgpack_object *src = member(o, "sourceIpAddr"), *dst = member(o, "destIpAddr");
    if (!src || !ip_addr(src, &out->source))
        return fail(c, cause, ptr, "/ssm/sourceIpAddr",
                    "must be an IpAddr with one of ipv4Addr, ipv6Addr or ipv6Prefix");
    if (!dst || !ip_addr(dst, &out->dest))
        return fail(c, cause, ptr, "/ssm/destIpAddr",
                    "must be an IpAddr with one of ipv4Addr, ipv6Addr or ipv6Prefix");
    out->has_ssm = true;
    return 0;
}

int bsf_mbs_session_id_decode(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                              bsf_cause_t cause, bsf_mbs_session_id_t *out)
{
    memset(out, 0, sizeof *out);
    if (o->type != MSGPACK_OBJECT_MAP)
        return fail(c, cause, ptr, "", "must be an MbsSessionId object");
    const msgpack_object *tmgi = member(o, "tmgi"), *ssm = member(o, "ssm"),
                         *nid = member(o, "nid");
    if (tmgi && (tmgi->type != MSGPACK_OBJECT_MAP || decode_tmgi(c, tmgi, ptr, cause, out)))
        return tmgi->type != MSGPACK_OBJECT_MAP
                   ? fail(c, cause, ptr, "/tmgi", "must be a Tmgi object")
                   : -1;
    if (ssm && (ssm->type != MSGPACK_OBJECT_MAP || decode_ssm(c, ssm, ptr, cause, out)))
        return ssm->type != MSGPACK_OBJECT_MAP ? fail(c, cause, ptr, "/ssm", "must be an Ssm object")
                                               : -1;
    if (nid && !(out->has_nid = hex_text(nid, 11, out->nid)))
        return fail(c, cause, ptr, "/nid", "must be 11 hexadecimal digits");
    if (!out->has_tmgi && !out->has_ssm)
        return fail(c, cause, ptr, "", "needs tmgi or ssm");
    return 0;
}

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

static void ip_text(const bsf_ip_addr_t *a, char out[BSF_IPV6_TEXT_MAX])
{
    if (a->kind == BSF_IP_ADDR_V4)
        bsf_ipv4_format(&a->v4, out);
    else if (a->kind == BSF_IP_ADDR_V6)
        bsf_ipv6_addr_format(a->v6.b, out);
    else
        bsf_ipv6_prefix_format(&a->v6, out);
}

static int pack_ip_addr(msgpack_packer *pk, const bsf_ip_addr_t *a)
{
    static const char *const names[] = {"", "ipv4Addr", "ipv6Addr", "ipv6Prefix"};
    char t[BSF_IPV6_TEXT_MAX];
    ip_text(a, t);
    return msgpack_pack_map(pk, 1) || pack_cstr(pk, names[a->kind]) || pack_cstr(pk, t);
}

int bsf_mbs_session_id_encode(const bsf_mbs_session_id_t *id, msgpack_packer *pk)
{
    if (msgpack_pack_map(pk, (size_t)id->has_tmgi + id->has_ssm + id->has_nid))
        return -1;
    if (id->has_tmgi &&
        (pack_cstr(pk, "tmgi") || msgpack_pack_map(pk, 2) || pack_cstr(pk, "mbsServiceId") ||
         pack_cstr(pk, id->mbs_service_id) || pack_cstr(pk, "plmnId") ||
         msgpack_pack_map(pk, 2) || pack_cstr(pk, "mcc") || pack_cstr(pk, id->mcc) ||
         pack_cstr(pk, "mnc") || pack_cstr(pk, id->mnc)))
        return -1;
    if (id->has_ssm &&
        (pack_cstr(pk, "ssm") || msgpack_pack_map(pk, 2) || pack_cstr(pk, "sourceIpAddr") ||
         pack_ip_addr(pk, &id->source) || pack_cstr(pk, "destIpAddr") ||
         pack_ip_addr(pk, &id->dest)))
        return -1;
    return id->has_nid && (pack_cstr(pk, "nid") || pack_cstr(pk, id->nid));
}

static bool ip_equal(const bsf_ip_addr_t *a, const bsf_ip_addr_t *b)
{
    if (a->kind != b->kind)
        return false;
    return a->kind == BSF_IP_ADDR_V4 ? memcmp(a->v4.b, b->v4.b, 4) == 0
                                     : a->v6.len == b->v6.len && memcmp(a->v6.b, b->v6.b, 16) == 0;
}

bool bsf_mbs_session_id_matches(const bsf_mbs_session_id_t *q, const bsf_mbs_session_id_t *s)
{
    if (q->has_tmgi && (!s->has_tmgi || strcmp(q->mbs_service_id, s->mbs_service_id) ||
                        strcmp(q->mcc, s->mcc) || strcmp(q->mnc, s->mnc)))
        return false;
    if (q->has_ssm && (!s->has_ssm || !ip_equal(&q->source, &s->source) ||
                       !ip_equal(&q->dest, &s->dest)))
        return false;
    return !q->has_nid || (s->has_nid && strcmp(q->nid, s->nid) == 0);
}

size_t bsf_mbs_session_id_keys(const bsf_mbs_session_id_t *id, char out[2][BSF_MBS_KEY_MAX])
{
    size_t n = 0;
    if (id->has_tmgi)
        snprintf(out[n++], BSF_MBS_KEY_MAX, "tmgi:%s-%s-%s", id->mbs_service_id, id->mcc,
                 id->mnc);
    if (id->has_ssm) {
        char s[BSF_IPV6_TEXT_MAX], d[BSF_IPV6_TEXT_MAX];
        ip_text(&id->source, s);
        ip_text(&id->dest, d);
        snprintf(out[n++], BSF_MBS_KEY_MAX, "ssm:%s,%s", s, d);
    }
    return n;
}
