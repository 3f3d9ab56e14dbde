/* The /pcf-mbs-bindings operations (TS 29.521 API 1.5.0). */
#include "gateways/sbi/pcf_mbs_bindings.h"

#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "common/error.h"
#include "core/features.h"
#include "core/member_parse.h"
#include "gateways/sbi/discovery_query.h"
#include "gateways/sbi/json_codec.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/nbsf_write.h"

#define MAX_MBS_MATCHES 16

/* ---- writes ------------------------------------------------------------------------ */

static void answer_write(bsf_nbsf_request_t *rq, const bsf_command_t *cmd)
{
    msgpack_object body;
    bool has_body = bsf_nbsf_unpack_result(rq, cmd, &body) == 0;
    if (cmd->status != BSF_CMD_OK) {
        if (has_body && cmd->problem.cause == BSF_CAUSE_EXISTING_BINDING_INFO_FOUND)
            bsf_nbsf_respond_problem_ext(rq, &cmd->problem, &body); /* MbsExtProblemDetails */
        else
            bsf_nbsf_respond_problem(rq, &cmd->problem, NULL);
        return;
    }
    if (cmd->kind == BSF_CMD_MBS_DEREGISTER) {
        bsf_nbsf_respond_empty(rq, 204);
        return;
    }
    msgpack_sbuffer *json = &rq->w->json;
    msgpack_sbuffer_clear(json);
    if (!has_body || bsf_json_write(&body, json, NULL, NULL)) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "cannot render the binding");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (cmd->kind == BSF_CMD_MBS_UPDATE) {
        bsf_nbsf_respond_json(rq, 200, NULL, 0, json);
        return;
    }
    char id[BSF_BINDING_ID_TEXT_LEN + 1], location[512];
    bsf_binding_id_format(&cmd->id, id);
    snprintf(location, sizeof location, "%s/nbsf-management/v1/" BSF_PCF_MBS_BINDINGS "/%s",
             rq->w->svc->api_root, id);
    bsf_h2_header_t h = {"location", location};
    bsf_nbsf_respond_json(rq, 201, &h, 1, json);
}

static void mbs_register(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r)
{
    msgpack_object doc;
    if (bsf_nbsf_parse_body(rq, r, "application/json", &doc))
        return;
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, BSF_CMD_MBS_REGISTER);
    if (!cmd)
        return;
    bsf_problem_t p;
    if (bsf_pcf_mbs_binding_decode(&doc, &cmd->zone, &cmd->mbs_binding, &p) ||
        bsf_pcf_mbs_binding_check_rules(&cmd->mbs_binding, &p)) {
        bsf_command_free(cmd);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (cmd->mbs_binding.supp_feat) {
        char *agreed = msgpack_zone_malloc(&cmd->zone, 72);
        if (agreed) {
            bsf_features_intersect(cmd->mbs_binding.supp_feat, BSF_SUPPORTED_FEATURES, agreed,
                                   72);
            cmd->mbs_binding.supp_feat = agreed;
        }
    }
    bsf_nbsf_submit(rq, cmd, answer_write);
}

static void mbs_update(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                       const bsf_binding_id_t *id)
{
    msgpack_object doc;
    if (bsf_nbsf_parse_body(rq, r, "application/merge-patch+json", &doc))
        return;
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, BSF_CMD_MBS_UPDATE);
    if (!cmd)
        return;
    bsf_problem_t p;
    if (bsf_pcf_mbs_binding_patch_decode(&doc, &cmd->zone, &cmd->mbs_patch, &p)) {
        bsf_command_free(cmd);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    cmd->id = *id;
    bsf_nbsf_submit(rq, cmd, answer_write);
}

static void mbs_deregister(bsf_nbsf_request_t *rq, const bsf_binding_id_t *id)
{
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, BSF_CMD_MBS_DEREGISTER);
    if (!cmd)
        return;
    cmd->id = *id;
    cmd->reason = BSF_REASON_PCF_REQUEST;
    bsf_nbsf_submit(rq, cmd, answer_write);
}

/* ---- discovery --------------------------------------------------------------------- */

static int parse_session(const char *v, size_t n, msgpack_zone *zone, bsf_mbs_query_t *q,
                         bsf_problem_t *problem)
{
    const bsf_cause_t cause = BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT;
    msgpack_sbuffer buf;
    msgpack_object obj;
    msgpack_sbuffer_init(&buf);
    int rc = bsf_json_to_msgpack(v, n, &buf, zone, &obj, problem);
    if (rc == 0) {
        bsf_member_ctx_t c = {zone, problem};
        rc = bsf_mbs_session_id_decode(&c, &obj, "query mbs-session-id", cause, &q->session);
    } else {
        rc = bsf_problem_fail(problem, cause, "query mbs-session-id",
                              "must be a JSON MbsSessionId object");
    }
    msgpack_sbuffer_destroy(&buf);
    return rc;
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
    char *buf = msgpack_zone_malloc(zone, len + 1);
    if (!buf)
        return bsf_problem_fail(problem, BSF_CAUSE_SYSTEM_FAILURE, "query", "out of memory");
    for (size_t pos = 0; pos < len;) {
        const char *amp = memchr(query + pos, '&', len - pos);
        size_t end = amp ? (size_t)(amp - query) : len;
        const char *item = query + pos;
        size_t item_len = end - pos;
        pos = end + 1;
        if (item_len == 0)
            continue;
        const char *eq = memchr(item, '=', item_len);
        size_t name_len = eq ? (size_t)(eq - item) : item_len;
        char name[32];
        long nd = name_len < sizeof name ? bsf_percent_decode(item, name_len, name) : -1;
        if (nd >= 0 && (size_t)nd < sizeof name)
            name[nd] = '\0';
        bool session = nd >= 0 && strcmp(name, "mbs-session-id") == 0;
        bool feat = nd >= 0 && strcmp(name, "supp-feat") == 0;
        char pn[48];
        snprintf(pn, sizeof pn, "query %.32s", nd >= 0 && (size_t)nd < sizeof name ? name : "");
        if (!session && !feat)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is not a parameter of this resource");
        if (session ? have_session : have_feat)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is given more than once");
        long vn = bsf_percent_decode(eq ? eq + 1 : item + item_len,
                                     eq ? item_len - name_len - 1 : 0, buf);
        if (vn < 0)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "has a malformed percent-encoding");
        buf[vn] = '\0';
        if (session ? parse_session(buf, (size_t)vn, zone, q, problem)
                    : parse_supp_feat(buf, (size_t)vn, zone, q, problem))
            return -1;
        have_session |= session;
        have_feat |= feat;
        buf += vn + 1;
    }
    if (!have_session)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING,
                                "query mbs-session-id", "is required");
    return 0;
}

static int render(bsf_nbsf_request_t *rq, const bsf_mbs_query_t *q, const bsf_mbs_match_t *m,
                  size_t n)
{
    msgpack_sbuffer *json = &rq->w->json;
    char agreed[72];
    const char *supp_feat = NULL;
    if (q->supp_feat) {
        bsf_features_intersect(q->supp_feat, BSF_SUPPORTED_FEATURES, agreed, sizeof agreed);
        supp_feat = agreed;
    }
    msgpack_sbuffer_clear(json);
    msgpack_sbuffer_write(json, "[", 1);
    for (size_t i = 0; i < n; i++) {
        msgpack_object obj;
        size_t off = 0, len;
        const char *mp;
        if (bsf_record_binding_msgpack(&m[i].record, &rq->w->zone, &mp, &len) ||
            msgpack_unpack(mp, len, &off, &rq->w->zone, &obj) != MSGPACK_UNPACK_SUCCESS ||
            (i && msgpack_sbuffer_write(json, ",", 1)) ||
            bsf_json_write(&obj, json, NULL, supp_feat))
            return -1;
    }
    return msgpack_sbuffer_write(json, "]", 1);
}

static void mbs_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len)
{
    bsf_nbsf_worker_t *w = rq->w;
    bsf_mbs_query_t q;
    bsf_problem_t p;
    msgpack_zone_clear(&w->zone);
    if (bsf_mbs_query_parse(query, query_len, &w->zone, &q, &p)) {
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    bsf_mbs_match_t matches[MAX_MBS_MATCHES];
    size_t n = 0;
    int rc = bsf_read_begin(w->reader);
    if (!rc)
        rc = bsf_read_mbs_discover(w->reader, &q.session, &w->zone, matches, MAX_MBS_MATCHES,
                                   &n);
    if (!rc && render(rq, &q, matches, n)) /* before the snapshot ends */
        rc = -1;
    bsf_read_end(w->reader);
    if (rc) {
        BSF_ERROR("sbi", "MBS binding discovery failed: %s",
                  rc == -1 ? "render" : bsf_strerror(rc));
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "the binding store failed");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    bsf_nbsf_respond_json(rq, 200, NULL, 0, &w->json); /* [] on a miss (minItems 0) */
}

/* ---- routing ----------------------------------------------------------------------- */

static void refuse_method(bsf_nbsf_request_t *rq, const char *method, const char *allow)
{
    bsf_h2_header_t h = {"allow", allow};
    if (strcmp(method, "HEAD") == 0) {
        bsf_nbsf_respond_headers(rq, 405, &h, 1);
        return;
    }
    bsf_problem_t p;
    bsf_problem_set(&p, BSF_CAUSE_METHOD_NOT_ALLOWED, "%s is not allowed on %s (allowed: %s)",
                    method, rq->instance, allow);
    bsf_nbsf_respond_problem_with(rq, &p, NULL, &h, 1);
}

bool bsf_pcf_mbs_bindings_route(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                                const char *res, size_t res_len, const char *query,
                                size_t query_len)
{
    const size_t nlen = strlen(BSF_PCF_MBS_BINDINGS);
    if (res_len < nlen || memcmp(res, BSF_PCF_MBS_BINDINGS, nlen) != 0 ||
        (res_len > nlen && res[nlen] != '/'))
        return false;
    bool collection = res_len == nlen;
    const char *id_text = res + nlen + 1;
    size_t id_len = collection ? 0 : res_len - nlen - 1;
    if (!collection && (id_len == 0 || memchr(id_text, '/', id_len)))
        return false;
    const char *m = r->method;
    bsf_problem_t p;
    if (collection && strcmp(m, "GET") == 0) {
        rq->op = BSF_SBI_OP_DISCOVER;
        mbs_discover(rq, query ? query : "", query_len);
        return true;
    }
    if (collection ? strcmp(m, "POST") != 0 : strcmp(m, "DELETE") && strcmp(m, "PATCH")) {
        refuse_method(rq, m, collection ? "GET, POST" : "DELETE, PATCH");
        return true;
    }
    if (query) {
        bsf_problem_set(&p, BSF_CAUSE_INVALID_QUERY_PARAM, "%s takes no query parameters", m);
        bsf_problem_add_param(&p, "query", "is not a parameter of this operation");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return true;
    }
    if (collection) {
        rq->op = BSF_SBI_OP_REGISTER;
        mbs_register(rq, r);
        return true;
    }
    bsf_binding_id_t id;
    rq->op = m[0] == 'D' ? BSF_SBI_OP_DEREGISTER : BSF_SBI_OP_UPDATE;
    if (!bsf_binding_id_parse(id_text, id_len, &id)) {
        bsf_problem_set(&p, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND,
                        "no PCF for an MBS session binding with this id");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return true;
    }
    if (rq->op == BSF_SBI_OP_DEREGISTER)
        mbs_deregister(rq, &id);
    else
        mbs_update(rq, r, &id);
    return true;
}
