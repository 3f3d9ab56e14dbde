#include "core/pcf_binding_patch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/member_parse.h"

#define OPT BSF_CAUSE_OPTIONAL_IE_INCORRECT

/* Which PcfBindingPatch members exist, which of them the schema makes nullable, and the
 * offset of each one's operation slot in bsf_pcf_binding_patch_t. */
typedef struct {
    const char *name;
    bool nullable;
    size_t op;
} patch_member_t;

#define OP(slot) offsetof(bsf_pcf_binding_patch_t, slot)

static const patch_member_t members[] = {
    {"ipv4Addr", true, OP(ipv4)},           {"ipDomain", true, OP(ip_domain)},
    {"ipv6Prefix", true, OP(ipv6)},         {"addIpv6Prefixes", true, OP(add_ipv6)},
    {"macAddr48", true, OP(mac)},           {"addMacAddrs", true, OP(add_mac)},
    {"pcfId", false, OP(pcf_id)},           {"pcfFqdn", false, OP(pcf_fqdn)},
    {"pcfIpEndPoints", false, OP(pcf_ip_end_points)},
    {"pcfDiamHost", false, OP(pcf_diam_host)}, {"pcfDiamRealm", false, OP(pcf_diam_realm)},
};

static const patch_member_t *find_member(const char *key)
{
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
        if (strcmp(members[i].name, key) == 0)
            return &members[i];
    return NULL;
}

int bsf_pcf_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                 bsf_pcf_binding_patch_t *out, bsf_problem_t *problem)
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
        char key[64];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, "/",
                                    "member name is not modifiable");
        const patch_member_t *m = find_member(key);
        char ptr[72];
        snprintf(ptr, sizeof ptr, "/%s", key);
        if (!m)
            return bsf_problem_fail(problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED, ptr,
                                    "is not a member of PcfBindingPatch and cannot be modified");
        bsf_patch_op_t *op = (bsf_patch_op_t *)((char *)out + m->op);
        if (kv->val.type == MSGPACK_OBJECT_NIL) {
            if (!m->nullable)
                return bsf_problem_fail(problem, OPT, ptr, "cannot be removed (not nullable)");
            *op = BSF_PATCH_REMOVE;
            continue;
        }
        /* A value is decoded exactly as in a registration (same formats and causes). */
        if (bsf_pcf_binding_decode_member(&c, key, &kv->val, &out->values))
            return -1;
        *op = BSF_PATCH_SET;
    }
    return 0;
}

bool bsf_pcf_binding_patch_is_empty(const bsf_pcf_binding_patch_t *p)
{
    return !p->ipv4 && !p->ip_domain && !p->ipv6 && !p->add_ipv6 && !p->mac && !p->add_mac &&
           !p->pcf_id && !p->pcf_fqdn && !p->pcf_ip_end_points && !p->pcf_diam_host &&
           !p->pcf_diam_realm;
}

static void apply_text(bsf_patch_op_t op, const char *value, const char **field)
{
    if (op == BSF_PATCH_REMOVE)
        *field = NULL;
    else if (op == BSF_PATCH_SET)
        *field = value;
}

void bsf_pcf_binding_patch_apply(const bsf_pcf_binding_t *base,
                                 const bsf_pcf_binding_patch_t *p, bsf_pcf_binding_t *r)
{
    const bsf_pcf_binding_t *v = &p->values;
    *r = *base;
    if (p->ipv4) {
        r->has_ipv4 = p->ipv4 == BSF_PATCH_SET;
        r->ipv4 = v->ipv4;
    }
    apply_text(p->ip_domain, v->ip_domain, &r->ip_domain);
    if (p->ipv6) {
        r->has_ipv6 = p->ipv6 == BSF_PATCH_SET;
        r->ipv6 = v->ipv6;
    }
    if (p->add_ipv6) {
        r->n_add_ipv6 = p->add_ipv6 == BSF_PATCH_SET ? v->n_add_ipv6 : 0;
        r->add_ipv6 = p->add_ipv6 == BSF_PATCH_SET ? v->add_ipv6 : NULL;
    }
    if (p->mac) {
        r->has_mac = p->mac == BSF_PATCH_SET;
        r->mac = v->mac;
    }
    if (p->add_mac) {
        r->n_add_mac = p->add_mac == BSF_PATCH_SET ? v->n_add_mac : 0;
        r->add_mac = p->add_mac == BSF_PATCH_SET ? v->add_mac : NULL;
    }
    apply_text(p->pcf_id, v->pcf_id, &r->pcf_id);
    apply_text(p->pcf_fqdn, v->pcf_fqdn, &r->pcf_fqdn);
    if (p->pcf_ip_end_points == BSF_PATCH_SET)
        r->pcf_ip_end_points = v->pcf_ip_end_points;
    apply_text(p->pcf_diam_host, v->pcf_diam_host, &r->pcf_diam_host);
    apply_text(p->pcf_diam_realm, v->pcf_diam_realm, &r->pcf_diam_realm);
}
