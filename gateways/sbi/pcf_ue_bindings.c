/* The /pcf-ue-bindings operations (TS 29.521 API 1.5.0). */
#include "gateways/sbi/pcf_ue_bindings.h"

#include <stdio.h>
#include <string.h>

#include "core/member_parse.h"
#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/query_string.h"

#define MAX_UE_MATCHES 16

/* ---- writes ------------------------------------------------------------------------ */

static int decode_binding(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                          bsf_command_t *cmd, const char ***supp_feat, bsf_problem_t *p)
{
    (void)cfg;
    *supp_feat = &cmd->ue_binding.supp_feat;
    return bsf_pcf_ue_binding_decode(doc, &cmd->zone, &cmd->ue_binding, p) ||
                   bsf_pcf_ue_binding_check_rules(&cmd->ue_binding, p)
               ? -1
               : 0;
}

static int decode_patch(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                        bsf_command_t *cmd, bsf_problem_t *p)
{
    (void)cfg;
    return bsf_pcf_ue_binding_patch_decode(doc, &cmd->zone, &cmd->ue_patch, p);
}

/* ---- discovery --------------------------------------------------------------------- */

static int parse_param(const char *name, const char *v, size_t n, msgpack_zone *zone,
                       bsf_ue_query_t *q, bsf_problem_t *problem)
{
    char pn[48];
    snprintf(pn, sizeof pn, "query %s", name);
    bsf_member_ctx_t c = {zone, problem};
    msgpack_object o = {.type = MSGPACK_OBJECT_STR, .via.str = {(uint32_t)n, v}};
    const char **slot = strcmp(name, "supi") == 0   ? &q->supi
                        : strcmp(name, "gpsi") == 0 ? &q->gpsi
                                                    : &q->supp_feat;
    if (*slot)
        return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                "is given more than once");
    if (slot == &q->supp_feat)
        return bsf_member_text(&c, &o, pn, BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT,
                               BSF_TEXT_HEX, slot);
    return bsf_member_text(&c, &o, pn, BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT,
                           slot == &q->supi ? BSF_TEXT_SUPI : BSF_TEXT_GPSI, slot);
}

int bsf_ue_query_parse(const char *query, size_t len, msgpack_zone *zone, bsf_ue_query_t *q,
                       bsf_problem_t *problem)
{
    memset(q, 0, sizeof *q);
    bsf_query_iter_t it;
    if (bsf_query_iter_init(&it, query, len, zone))
        return bsf_problem_fail(problem, BSF_CAUSE_SYSTEM_FAILURE, "query", "out of memory");
    bsf_query_item_t item;
    while (bsf_query_next(&it, &item)) {
        if (!item.name_ok || (strcmp(item.name, "supi") && strcmp(item.name, "gpsi") &&
                              strcmp(item.name, "supp-feat"))) {
            char pn[48];
            snprintf(pn, sizeof pn, "query %.32s", item.name);
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is not a parameter of this resource");
        }
        char *v;
        long vn = bsf_query_value(&it, &item, &v);
        if (vn < 0)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, "query",
                                    "has a malformed percent-encoding");
        if (parse_param(item.name, v, (size_t)vn, zone, q, problem))
            return -1;
    }
    if (!q->supi && !q->gpsi)
        return bsf_problem_fail_none_of(problem, BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING,
                                        "one of supi or gpsi is required",
                                        "supi or gpsi is required",
                                        (const char *const[]){"query supi", "query gpsi", NULL});
    return 0;
}

static int ue_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len,
                       bsf_problem_t *p)
{
    bsf_nbsf_worker_t *w = rq->w;
    bsf_ue_query_t q;
    if (bsf_ue_query_parse(query, query_len, &w->zone, &q, p))
        return -1;
    bsf_ue_match_t matches[MAX_UE_MATCHES];
    size_t n = 0;
    int rc = bsf_read_begin(w->reader);
    if (!rc)
        rc = bsf_read_ue_discover(w->reader, q.supi, q.gpsi, &w->zone, matches, MAX_UE_MATCHES,
                                  &n);
    bsf_nbsf_doc_answer_discovery(rq, rc, q.supp_feat, &matches[0].record, sizeof matches[0], n,
                                  "UE");
    return 0;
}

/* ---- routing ----------------------------------------------------------------------- */

const bsf_nbsf_doc_resource_t bsf_pcf_ue_bindings = {
    .name = BSF_PCF_UE_BINDINGS,
    .not_found = "no PCF for a UE binding with this id",
    .register_kind = BSF_CMD_UE_REGISTER,
    .update_kind = BSF_CMD_UE_UPDATE,
    .deregister_kind = BSF_CMD_UE_DEREGISTER,
    .discover = ue_discover,
    .decode_binding = decode_binding,
    .decode_patch = decode_patch,
};
