#include "core/pcf_mbs_binding.h"

#include <stdio.h>
#include <string.h>

#include "core/member_parse.h"

typedef struct {
    const char *name;
    bool end_points;
    bsf_text_kind_t text;
    size_t field;
} mbs_member_t;

#define AT(f) offsetof(bsf_pcf_mbs_binding_t, f)

static const mbs_member_t mbs_members[] = {
    {"pcfFqdn", false, BSF_TEXT_FQDN, AT(pcf_fqdn)},
    {"pcfIpEndPoints", true, 0, AT(pcf_ip_end_points)},
    {"pcfId", false, BSF_TEXT_UUID, AT(pcf_id)},
    {"pcfSetId", false, BSF_TEXT_IDENTITY, AT(pcf_set_id)},
    {"bindLevel", false, BSF_TEXT_IDENTITY, AT(bind_level)},
    {"recoveryTime", false, BSF_TEXT_DATE_TIME, AT(recovery_time)},
    {"suppFeat", false, BSF_TEXT_HEX, AT(supp_feat)},
};

/* One member by name (0 for an unknown one). */
static int decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                         bsf_pcf_mbs_binding_t *b)
{
    if (strcmp(key, "mbsSessionId") == 0) {
        b->has_mbs_session_id = true;
        return bsf_mbs_session_id_decode(c, v, "/mbsSessionId", BSF_CAUSE_MANDATORY_IE_INCORRECT,
                                         &b->mbs_session_id);
    }
    for (size_t i = 0; i < sizeof mbs_members / sizeof mbs_members[0]; i++) {
        const mbs_member_t *m = &mbs_members[i];
        if (strcmp(m->name, key) != 0)
            continue;
        char ptr[40];
        snprintf(ptr, sizeof ptr, "/%s", m->name);
        void *field = (char *)b + m->field;
        return m->end_points
                   ? bsf_member_end_points(c, v, ptr, BSF_CAUSE_OPTIONAL_IE_INCORRECT, field)
                   : bsf_member_text(c, v, ptr, BSF_CAUSE_OPTIONAL_IE_INCORRECT, m->text, field);
    }
    return 0;
}

int bsf_pcf_mbs_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                               bsf_pcf_mbs_binding_t *out, bsf_problem_t *problem)
{
    memset(out, 0, sizeof *out);
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT, "the body must be a JSON object");
        return -1;
    }
    bsf_member_ctx_t c = {zone, problem};
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        char key[32];
        if (bsf_member_key(&map->via.map.ptr[i].key, key, sizeof key) &&
            decode_member(&c, key, &map->via.map.ptr[i].val, out))
            return -1;
    }
    return 0;
}

int bsf_pcf_mbs_binding_check_rules(const bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem)
{
    if (!b->has_mbs_session_id)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/mbsSessionId",
                                "is missing");
    if (!b->pcf_fqdn && !b->pcf_ip_end_points.n) {
        bsf_problem_set(problem, BSF_CAUSE_MANDATORY_IE_MISSING,
                        "a PCF address is missing: pcfFqdn or pcfIpEndPoints is required");
        bsf_problem_add_param(problem, "/pcfFqdn", "one PCF address is required");
        bsf_problem_add_param(problem, "/pcfIpEndPoints", "one PCF address is required");
        return -1;
    }
    return 0;
}

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

static int pack_opt(msgpack_packer *pk, const char *key, const char *value)
{
    return value && (pack_cstr(pk, key) || pack_cstr(pk, value));
}

static int pack_end_points(msgpack_packer *pk, const bsf_ip_end_points_t *eps)
{
    if (msgpack_pack_array(pk, eps->n))
        return -1;
    for (size_t i = 0; i < eps->n; i++) {
        const bsf_ip_end_point_t *e = &eps->items[i];
        char t[BSF_IPV6_TEXT_MAX];
        if (msgpack_pack_map(pk, (e->has_ipv4 || e->has_ipv6) + (e->transport != NULL) +
                                     e->has_port))
            return -1;
        if (e->has_ipv4 || e->has_ipv6) {
            if (e->has_ipv4)
                bsf_ipv4_format(&e->ipv4, t);
            else
                bsf_ipv6_addr_format(e->ipv6, t);
            if (pack_cstr(pk, e->has_ipv4 ? "ipv4Address" : "ipv6Address") || pack_cstr(pk, t))
                return -1;
        }
        if (pack_opt(pk, "transport", e->transport) ||
            (e->has_port && (pack_cstr(pk, "port") || msgpack_pack_uint16(pk, e->port))))
            return -1;
    }
    return 0;
}

int bsf_pcf_mbs_binding_encode(const bsf_pcf_mbs_binding_t *b, msgpack_packer *pk)
{
    size_t n = b->has_mbs_session_id + (b->pcf_fqdn != NULL) + (b->pcf_ip_end_points.n > 0) +
               (b->pcf_id != NULL) + (b->pcf_set_id != NULL) + (b->bind_level != NULL) +
               (b->recovery_time != NULL) + (b->supp_feat != NULL);
    if (msgpack_pack_map(pk, n))
        return -1;
    if (b->has_mbs_session_id &&
        (pack_cstr(pk, "mbsSessionId") || bsf_mbs_session_id_encode(&b->mbs_session_id, pk)))
        return -1;
    if (pack_opt(pk, "pcfFqdn", b->pcf_fqdn))
        return -1;
    if (b->pcf_ip_end_points.n &&
        (pack_cstr(pk, "pcfIpEndPoints") || pack_end_points(pk, &b->pcf_ip_end_points)))
        return -1;
    return pack_opt(pk, "pcfId", b->pcf_id) || pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
                   pack_opt(pk, "bindLevel", b->bind_level) ||
                   pack_opt(pk, "recoveryTime", b->recovery_time) ||
                   pack_opt(pk, "suppFeat", b->supp_feat)
               ? -1
               : 0;
}

/* ---- merge patch ------------------------------------------------------------------- */

static bsf_patch_op_t *op_of(bsf_pcf_mbs_binding_patch_t *p, const char *key)
{
    if (strcmp(key, "pcfFqdn") == 0)
        return &p->pcf_fqdn;
    if (strcmp(key, "pcfIpEndPoints") == 0)
        return &p->pcf_ip_end_points;
    return strcmp(key, "pcfId") == 0 ? &p->pcf_id : NULL;
}

int bsf_pcf_mbs_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                     bsf_pcf_mbs_binding_patch_t *out, bsf_problem_t *problem)
{
    memset(out, 0, sizeof *out);
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "the merge patch must be a JSON object");
        return -1;
    }
    bsf_member_ctx_t c = {zone, problem};
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        char key[64], ptr[72];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, "/",
                                    "member name is not modifiable");
        snprintf(ptr, sizeof ptr, "/%s", key);
        bsf_patch_op_t *op = op_of(out, key);
        if (!op)
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, ptr,
                                    "is not a member of PcfMbsBindingPatch and cannot be "
                                    "modified");
        if (kv->val.type == MSGPACK_OBJECT_NIL)
            return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                    "cannot be removed (not nullable)");
        if (decode_member(&c, key, &kv->val, &out->values))
            return -1;
        *op = BSF_PATCH_SET;
    }
    return 0;
}

bool bsf_pcf_mbs_binding_patch_is_empty(const bsf_pcf_mbs_binding_patch_t *p)
{
    return !p->pcf_fqdn && !p->pcf_ip_end_points && !p->pcf_id;
}

void bsf_pcf_mbs_binding_patch_apply(const bsf_pcf_mbs_binding_t *base,
                                     const bsf_pcf_mbs_binding_patch_t *p,
                                     bsf_pcf_mbs_binding_t *r)
{
    *r = *base;
    if (p->pcf_fqdn == BSF_PATCH_SET)
        r->pcf_fqdn = p->values.pcf_fqdn;
    if (p->pcf_ip_end_points == BSF_PATCH_SET)
        r->pcf_ip_end_points = p->values.pcf_ip_end_points;
    if (p->pcf_id == BSF_PATCH_SET)
        r->pcf_id = p->values.pcf_id;
}
