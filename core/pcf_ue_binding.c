#include "core/pcf_ue_binding.h"

#include <stdio.h>
#include <string.h>

#include "core/member_pack.h"
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
                                     const msgpack_object *v, void *out)
{
    bsf_pcf_ue_binding_t *b = out;
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
    return bsf_member_decode_zeroed(map, zone, problem, bsf_pcf_ue_binding_decode_member, out,
                                    sizeof *out);
}

int bsf_pcf_ue_binding_check_rules(const bsf_pcf_ue_binding_t *b, bsf_problem_t *problem)
{
    if (!b->supi)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/supi", "is missing");
    if (!b->pcf_for_ue_fqdn && !b->pcf_for_ue_ip_end_points.n)
        return bsf_member_pcf_address_missing(problem, "pcfForUeFqdn", "pcfForUeIpEndPoints");
    return 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

/* Members in the order of the TS 29.521 schema. */
int bsf_pcf_ue_binding_encode(const bsf_pcf_ue_binding_t *b, msgpack_packer *pk)
{
    const bsf_ip_end_points_t *eps = &b->pcf_for_ue_ip_end_points;
    size_t n = (b->supi != NULL) + (b->gpsi != NULL) + (b->pcf_for_ue_fqdn != NULL) +
               (eps->n > 0) + (b->pcf_id != NULL) + (b->recovery_time != NULL) +
               (b->pcf_set_id != NULL) + (b->bind_level != NULL) + (b->supp_feat != NULL);
    if (msgpack_pack_map(pk, n) || bsf_pack_opt(pk, "supi", b->supi) ||
        bsf_pack_opt(pk, "gpsi", b->gpsi) ||
        bsf_pack_opt(pk, "pcfForUeFqdn", b->pcf_for_ue_fqdn))
        return -1;
    if (eps->n &&
        (bsf_pack_cstr(pk, "pcfForUeIpEndPoints") || bsf_pack_end_points(pk, eps)))
        return -1;
    return bsf_pack_opt(pk, "pcfId", b->pcf_id) ||
                   bsf_pack_opt(pk, "recoveryTime", b->recovery_time) ||
                   bsf_pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
                   bsf_pack_opt(pk, "bindLevel", b->bind_level) ||
                   bsf_pack_opt(pk, "suppFeat", b->supp_feat)
               ? -1
               : 0;
}

bool bsf_pcf_ue_binding_same_pcf(const bsf_pcf_ue_binding_t *a, const bsf_pcf_ue_binding_t *b)
{
    int compared = 0;
    return bsf_pcf_identity_agrees(a->pcf_id, b->pcf_id, &compared) &&
           bsf_pcf_identity_agrees(a->pcf_for_ue_fqdn, b->pcf_for_ue_fqdn, &compared) &&
           compared > 0;
}

/* ---- as a bsf_doc_type_t ------------------------------------------------------------ */

/* The adapters stay functions: calling the typed ones through a cast pointer is undefined. */
static int doc_decode(const msgpack_object *map, msgpack_zone *zone, void *out,
                      bsf_problem_t *problem)
{
    if (bsf_pcf_ue_binding_decode(map, zone, out, problem) ||
        bsf_pcf_ue_binding_check_rules(out, problem))
        return -1;
    return 0;
}

static int doc_encode(const void *doc, msgpack_packer *pk)
{
    return bsf_pcf_ue_binding_encode(doc, pk);
}

const bsf_doc_type_t bsf_pcf_ue_binding_type = {sizeof(bsf_pcf_ue_binding_t), doc_decode,
                                                doc_encode};
