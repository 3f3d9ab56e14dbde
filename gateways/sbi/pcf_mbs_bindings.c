/* The /pcf-mbs-bindings operations (TS 29.521 API 1.5.0). */
#include "gateways/sbi/pcf_mbs_bindings.h"

#include <stdio.h>
#include <string.h>

#include "core/member_parse.h"
#include "gateways/sbi/query_string.h"
#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_exchange.h"

#define MAX_MBS_MATCHES 16

/* ---- writes ------------------------------------------------------------------------ */

static int decode_binding(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                          bsf_command_t *cmd, const char ***supp_feat, bsf_problem_t *p)
{
    (void)cfg;
    *supp_feat = &cmd->mbs_binding.supp_feat;
    return bsf_pcf_mbs_binding_decode(doc, &cmd->zone, &cmd->mbs_binding, p) ||
                   bsf_pcf_mbs_binding_check_rules(&cmd->mbs_binding, p)
               ? -1
               : 0;
}

static int decode_patch(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                        bsf_command_t *cmd, bsf_problem_t *p)
{
    (void)cfg;
    return bsf_pcf_mbs_binding_patch_decode(doc, &cmd->zone, &cmd->mbs_patch, p);
}

/* ---- discovery --------------------------------------------------------------------- */

static int decode_session(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_cause_t cause, void *out)
{
    return bsf_mbs_session_id_decode(c, o, ptr, cause, out);
}

static int parse_session(const char *v, size_t n, msgpack_zone *zone, bsf_mbs_query_t *q,
                         bsf_problem_t *problem)
{
    return bsf_query_json_member(v, n, zone, "query mbs-session-id",
                                 BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT,
                                 "must be a JSON MbsSessionId object", decode_session,
                                 &q->session, problem);
}

/* supp-feat: a JSON string (the parameter's content is application/json) or bare hex. */
static int parse_supp_feat(char *v, size_t n, msgpack_zone *zone, bsf_mbs_query_t *q,
                           bsf_problem_t *problem)
{
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v++;
        n -= 2;
    }
    bsf_member_ctx_t c = {zone, problem};
    msgpack_object o = {.type = MSGPACK_OBJECT_STR, .via.str = {(uint32_t)n, v}};
    return bsf_member_text(&c, &o, "query supp-feat", BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT,
                           BSF_TEXT_HEX, &q->supp_feat);
}

int bsf_mbs_query_parse(const char *query, size_t len, msgpack_zone *zone, bsf_mbs_query_t *q,
                        bsf_problem_t *problem)
{
    memset(q, 0, sizeof *q);
    bool have_session = false, have_feat = false;
    bsf_query_iter_t it;
    if (bsf_query_iter_init(&it, query, len, zone))
        return bsf_problem_fail(problem, BSF_CAUSE_SYSTEM_FAILURE, "query", "out of memory");
    bsf_query_item_t item;
    while (bsf_query_next(&it, &item)) {
        bool session = item.name_ok && strcmp(item.name, "mbs-session-id") == 0;
        bool feat = item.name_ok && strcmp(item.name, "supp-feat") == 0;
        char pn[48];
        snprintf(pn, sizeof pn, "query %.32s", item.name);
        if (!session && !feat)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is not a parameter of this resource");
        if (session ? have_session : have_feat)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is given more than once");
        char *v;
        long vn = bsf_query_value(&it, &item, &v);
        if (vn < 0)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "has a malformed percent-encoding");
        if (session ? parse_session(v, (size_t)vn, zone, q, problem)
                    : parse_supp_feat(v, (size_t)vn, zone, q, problem))
            return -1;
        have_session |= session;
        have_feat |= feat;
    }
    if (!have_session)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING,
                                "query mbs-session-id", "is required");
    return 0;
}

static int mbs_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len,
                        bsf_problem_t *p)
{
    bsf_nbsf_worker_t *w = rq->w;
    bsf_mbs_query_t q;
    if (bsf_mbs_query_parse(query, query_len, &w->zone, &q, p))
        return -1;
    bsf_mbs_match_t matches[MAX_MBS_MATCHES];
    size_t n = 0;
    int rc = bsf_read_begin(w->reader);
    if (!rc)
        rc = bsf_read_mbs_discover(w->reader, &q.session, &w->zone, matches, MAX_MBS_MATCHES,
                                   &n);
    bsf_nbsf_doc_answer_discovery(rq, rc, q.supp_feat, &matches[0].record, sizeof matches[0], n,
                                  "MBS");
    return 0;
}

/* ---- routing ----------------------------------------------------------------------- */

const bsf_nbsf_doc_resource_t bsf_pcf_mbs_bindings = {
    .name = BSF_PCF_MBS_BINDINGS,
    .not_found = "no PCF for an MBS session binding with this id",
    .register_kind = BSF_CMD_MBS_REGISTER,
    .update_kind = BSF_CMD_MBS_UPDATE,
    .deregister_kind = BSF_CMD_MBS_DEREGISTER,
    .refusal_body = BSF_NBSF_REFUSAL_EXT_EXISTING,
    .discover = mbs_discover,
    .decode_binding = decode_binding,
    .decode_patch = decode_patch,
};
