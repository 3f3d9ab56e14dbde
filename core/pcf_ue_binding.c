#include "core/pcf_ue_binding.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/member_parse.h"

typedef struct {
    const char *name;
    bool end_points; /* an IpEndPoint array, else text of `text` kind */
    bsf_text_kind_t text;
    size_t field;
} ue_member_t;

#define AT(f) offsetof(bsf_pcf_ue_binding_t, f)

static const ue_member_t ue_members[] = {
    {"supi", false, BSF_TEXT_SUPI, AT(supi)},
    {"gpsi", false, BSF_TEXT_GPSI, AT(gpsi)},
    {"pcfForUeFqdn", false, BSF_TEXT_FQDN, AT(pcf_for_ue_fqdn)},
    {"pcfForUeIpEndPoints", true, 0, AT(pcf_for_ue_ip_end_points)},
    {"pcfId", false, BSF_TEXT_UUID, AT(pcf_id)},
    {"recoveryTime", false, BSF_TEXT_DATE_TIME, AT(recovery_time)},
    {"pcfSetId", false, BSF_TEXT_IDENTITY, AT(pcf_set_id)},
    {"bindLevel", false, BSF_TEXT_IDENTITY, AT(bind_level)},
    {"suppFeat", false, BSF_TEXT_HEX, AT(supp_feat)},
};

int bsf_pcf_ue_binding_decode_member(bsf_member_ctx_t *c, const char *key,
                                     const msgpack_object *v, bsf_pcf_ue_binding_t *b)
{
    const ue_member_t *m = NULL;
    for (size_t i = 0; i < sizeof ue_members / sizeof ue_members[0] && !m; i++)
        if (strcmp(ue_members[i].name, key) == 0)
            m = &ue_members[i];
    if (!m)
        return 0; /* unknown members are ignored (TS 29.500 extensibility) */
    char ptr[40];
    snprintf(ptr, sizeof ptr, "/%s", m->name);
    bsf_cause_t cause = m->field == AT(supi) ? BSF_CAUSE_MANDATORY_IE_INCORRECT
                                             : BSF_CAUSE_OPTIONAL_IE_INCORRECT;
    void *field = (char *)b + m->field;
    if (m->end_points)
        return bsf_member_end_points(c, v, ptr, cause, field);
    return bsf_member_text(c, v, ptr, cause, m->text, field);
}

int bsf_pcf_ue_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                              bsf_pcf_ue_binding_t *out, bsf_problem_t *problem)
{
    memset(out, 0, sizeof *out);
    if (map->type != MSGPACK_OBJECT_MAP) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT, "the body must be a JSON object");
        return -1;
    }
    bsf_member_ctx_t c = {zone, problem};
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        char key[32];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            continue;
        if (bsf_pcf_ue_binding_decode_member(&c, key, &kv->val, out))
            return -1;
    }
    return 0;
}

int bsf_pcf_ue_binding_check_rules(const bsf_pcf_ue_binding_t *b, bsf_problem_t *problem)
{
    if (!b->supi)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/supi", "is missing");
    if (!b->pcf_for_ue_fqdn && !b->pcf_for_ue_ip_end_points.n) {
        bsf_problem_set(problem, BSF_CAUSE_MANDATORY_IE_MISSING,
                        "a PCF address is missing: pcfForUeFqdn or pcfForUeIpEndPoints is "
                        "required");
        bsf_problem_add_param(problem, "/pcfForUeFqdn", "one PCF address is required");
        bsf_problem_add_param(problem, "/pcfForUeIpEndPoints", "one PCF address is required");
        return -1;
    }
    return 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

static int pack_opt(msgpack_packer *pk, const char *key, const char *value)
{
    return value && (pack_cstr(pk, key) || pack_cstr(pk, value));
}

static int pack_end_point(msgpack_packer *pk, const bsf_ip_end_point_t *e)
{
    size_t members = (e->has_ipv4 || e->has_ipv6) + (e->transport != NULL) + e->has_port;
    char t[BSF_IPV6_TEXT_MAX];
    if (msgpack_pack_map(pk, members))
        return -1;
    if (e->has_ipv4) {
        bsf_ipv4_format(&e->ipv4, t);
        if (pack_cstr(pk, "ipv4Address") || pack_cstr(pk, t))
            return -1;
    } else if (e->has_ipv6) {
        bsf_ipv6_addr_format(e->ipv6, t);
        if (pack_cstr(pk, "ipv6Address") || pack_cstr(pk, t))
            return -1;
    }
    if (pack_opt(pk, "transport", e->transport))
        return -1;
    return e->has_port && (pack_cstr(pk, "port") || msgpack_pack_uint16(pk, e->port));
}

/* Members in the order of the TS 29.521 schema. */
int bsf_pcf_ue_binding_encode(const bsf_pcf_ue_binding_t *b, msgpack_packer *pk)
{
    const bsf_ip_end_points_t *eps = &b->pcf_for_ue_ip_end_points;
    size_t n = (b->supi != NULL) + (b->gpsi != NULL) + (b->pcf_for_ue_fqdn != NULL) +
               (eps->n > 0) + (b->pcf_id != NULL) + (b->recovery_time != NULL) +
               (b->pcf_set_id != NULL) + (b->bind_level != NULL) + (b->supp_feat != NULL);
    if (msgpack_pack_map(pk, n) || pack_opt(pk, "supi", b->supi) ||
        pack_opt(pk, "gpsi", b->gpsi) || pack_opt(pk, "pcfForUeFqdn", b->pcf_for_ue_fqdn))
        return -1;
    if (eps->n) {
        if (pack_cstr(pk, "pcfForUeIpEndPoints") || msgpack_pack_array(pk, eps->n))
            return -1;
        for (size_t i = 0; i < eps->n; i++)
            if (pack_end_point(pk, &eps->items[i]))
                return -1;
    }
    return pack_opt(pk, "pcfId", b->pcf_id) || pack_opt(pk, "recoveryTime", b->recovery_time) ||
                   pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
                   pack_opt(pk, "bindLevel", b->bind_level) ||
                   pack_opt(pk, "suppFeat", b->supp_feat)
               ? -1
               : 0;
}

bool bsf_pcf_ue_binding_same_pcf(const bsf_pcf_ue_binding_t *a, const bsf_pcf_ue_binding_t *b)
{
    int compared = 0;
    if (a->pcf_id && b->pcf_id) {
        if (strcasecmp(a->pcf_id, b->pcf_id) != 0)
            return false;
        compared++;
    }
    if (a->pcf_for_ue_fqdn && b->pcf_for_ue_fqdn) {
        if (strcasecmp(a->pcf_for_ue_fqdn, b->pcf_for_ue_fqdn) != 0)
            return false;
        compared++;
    }
    return compared > 0;
}
