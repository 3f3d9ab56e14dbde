#include "core/pcf_mbs_binding.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/member_pack.h"
#include "core/member_parse.h"
#include "core/merge_patch.h"

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

/* One member by name into `out` (a bsf_pcf_mbs_binding_t; 0 for an unknown one). */
static int decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                         void *out)
{
    bsf_pcf_mbs_binding_t *b = out;
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
    return bsf_member_decode_zeroed(map, zone, problem, decode_member, out, sizeof *out);
}

int bsf_pcf_mbs_binding_check_rules(const bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem)
{
    if (!b->has_mbs_session_id)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/mbsSessionId",
                                "is missing");
    if (!b->pcf_fqdn && !b->pcf_ip_end_points.n)
        return bsf_member_pcf_address_missing(problem, "pcfFqdn", "pcfIpEndPoints");
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
        (bsf_pack_cstr(pk, "mbsSessionId") ||
         bsf_mbs_session_id_encode(&b->mbs_session_id, pk)))
        return -1;
    if (bsf_pack_opt(pk, "pcfFqdn", b->pcf_fqdn))
        return -1;
    if (b->pcf_ip_end_points.n &&
        (bsf_pack_cstr(pk, "pcfIpEndPoints") ||
         bsf_pack_end_points(pk, &b->pcf_ip_end_points)))
        return -1;
    return bsf_pack_opt(pk, "pcfId", b->pcf_id) ||
                   bsf_pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
                   bsf_pack_opt(pk, "bindLevel", b->bind_level) ||
                   bsf_pack_opt(pk, "recoveryTime", b->recovery_time) ||
                   bsf_pack_opt(pk, "suppFeat", b->supp_feat)
               ? -1
               : 0;
}

/* ---- merge patch ------------------------------------------------------------------- */

#define MEMBER(name, f) \
    BSF_MERGE_PATCH_MEMBER(name, bsf_pcf_mbs_binding_patch_t, bsf_pcf_mbs_binding_t, f)

static const bsf_merge_patch_member_t patch_members[] = {
    MEMBER("pcfFqdn", pcf_fqdn),
    MEMBER("pcfIpEndPoints", pcf_ip_end_points),
    MEMBER("pcfId", pcf_id),
};

static const bsf_merge_patch_type_t patch_type =
    BSF_MERGE_PATCH_TYPE("PcfMbsBindingPatch", bsf_pcf_mbs_binding_patch_t, bsf_pcf_mbs_binding_t,
                         patch_members, decode_member);

int bsf_pcf_mbs_binding_patch_decode(const msgpack_object *map, msgpack_zone *zone,
                                     bsf_pcf_mbs_binding_patch_t *out, bsf_problem_t *problem)
{
    return bsf_merge_patch_decode_set_only(map, zone, problem, &patch_type, out);
}

bool bsf_pcf_mbs_binding_patch_is_empty(const bsf_pcf_mbs_binding_patch_t *p)
{
    return bsf_merge_patch_is_empty(&patch_type, p);
}

void bsf_pcf_mbs_binding_patch_apply(const bsf_pcf_mbs_binding_t *base,
                                     const bsf_pcf_mbs_binding_patch_t *p,
                                     bsf_pcf_mbs_binding_t *r)
{
    bsf_merge_patch_apply(&patch_type, base, p, r);
}

/* ---- as a bsf_doc_type_t ------------------------------------------------------------ */

/* The adapters stay functions: calling the typed ones through a cast pointer is undefined. */
static int doc_decode(const msgpack_object *map, msgpack_zone *zone, void *out,
                      bsf_problem_t *problem)
{
    if (bsf_pcf_mbs_binding_decode(map, zone, out, problem) ||
        bsf_pcf_mbs_binding_check_rules(out, problem))
        return -1;
    return 0;
}

static int doc_encode(const void *doc, msgpack_packer *pk)
{
    return bsf_pcf_mbs_binding_encode(doc, pk);
}

const bsf_doc_type_t bsf_pcf_mbs_binding_type = {sizeof(bsf_pcf_mbs_binding_t), doc_decode,
                                                 doc_encode};
