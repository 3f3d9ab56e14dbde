#include "core/pcf_binding_patch.h"

#include <stdio.h>
#include <string.h>

#include "core/member_parse.h"

#define OPT BSF_CAUSE_OPTIONAL_IE_INCORRECT

/* Which PcfBindingPatch members exist and which of them the schema makes nullable. */
typedef struct {
    const char *name;
    bool nullable;
} patch_member_t;

static const patch_member_t members[] = {
    {"ipv4Addr", true},      {"ipDomain", true},      {"ipv6Prefix", true},
    {"addIpv6Prefixes", true}, {"macAddr48", true},   {"addMacAddrs", true},
    {"pcfId", false},        {"pcfFqdn", false},      {"pcfIpEndPoints", false},
    {"pcfDiamHost", false},  {"pcfDiamRealm", false},
};

static const patch_member_t *find_member(const char *key)
{
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
        if (strcmp(members[i].name, key) == 0)
            return &members[i];
    return NULL;
}

static bsf_patch_op_t *op_of(bsf_pcf_binding_patch_t *p, const char *key)
{
    if (strcmp(key, "ipv4Addr") == 0)
        return &p->ipv4;
    if (strcmp(key, "ipDomain") == 0)
        return &p->ip_domain;
    if (strcmp(key, "ipv6Prefix") == 0)
        return &p->ipv6;
    if (strcmp(key, "addIpv6Prefixes") == 0)
        return &p->add_ipv6;
    if (strcmp(key, "macAddr48") == 0)
        return &p->mac;
    if (strcmp(key, "addMacAddrs") == 0)
        return &p->add_mac;
    if (strcmp(key, "pcfId") == 0)
        return &p->pcf_id;
    if (strcmp(key, "pcfFqdn") == 0)
        return &p->pcf_fqdn;
    if (strcmp(key, "pcfIpEndPoints") == 0)
        return &p->pcf_ip_end_points;
    if (strcmp(key, "pcfDiamHost") == 0)
        return &p->pcf_diam_host;
    return &p->pcf_diam_realm;
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
        bsf_patch_op_t *op = op_of(out, key);
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
