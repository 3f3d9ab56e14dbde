/* The routing, write answers and discovery rendering shared by /pcf-ue-bindings and
 * /pcf-mbs-bindings (TS 29.521 API 1.5.0). */
#include "gateways/sbi/nbsf_doc_resource.h"

#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "common/error.h"
#include "core/features.h"
#include "gateways/sbi/json_codec.h"
#include "gateways/sbi/nbsf_exchange.h"

/* ---- writes ------------------------------------------------------------------------ */

/* A write the engine did without error: `body` is its binding, or NULL. */
static void answer_ok(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                      const bsf_command_t *cmd, const msgpack_object *body)
{
    if (cmd->kind == d->deregister_kind) {
        bsf_nbsf_respond_empty(rq, 204);
        return;
    }
    msgpack_sbuffer *json = &rq->w->json;
    msgpack_sbuffer_clear(json);
    if (!body || bsf_json_write(body, json, NULL, NULL)) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "cannot render the binding");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (cmd->kind == d->update_kind) {
        bsf_nbsf_respond_json(rq, 200, NULL, 0, json);
        return;
    }
    char id[BSF_BINDING_ID_TEXT_LEN + 1], location[512];
    bsf_binding_id_format(&cmd->id, id);
    snprintf(location, sizeof location, "%s/nbsf-management/v1/%s/%s", rq->w->svc->api_root,
             d->name, id);
    bsf_h2_header_t h = {"location", location};
    bsf_nbsf_respond_json(rq, 201, &h, 1, json);
}

/* The answer of a write the engine is done with; `ctx` is the collection. */
static void answer(bsf_nbsf_request_t *rq, const bsf_command_t *cmd, const void *ctx)
{
    const bsf_nbsf_doc_resource_t *d = ctx;
    msgpack_object body;
    bool has_body = bsf_nbsf_unpack_result(rq, cmd, &body) == 0;
    if (cmd->status == BSF_CMD_OK) {
        answer_ok(d, rq, cmd, has_body ? &body : NULL);
        return;
    }
    if (has_body && d->refusal_body == BSF_NBSF_REFUSAL_BINDING)
        bsf_nbsf_respond_problem(rq, &cmd->problem, &body);
    else if (has_body && d->refusal_body == BSF_NBSF_REFUSAL_EXT_EXISTING &&
             cmd->problem.cause == BSF_CAUSE_EXISTING_BINDING_INFO_FOUND)
        bsf_nbsf_respond_problem_ext(rq, &cmd->problem, &body);
    else
        bsf_nbsf_respond_problem(rq, &cmd->problem, NULL);
}

void bsf_nbsf_doc_agree_features(msgpack_zone *zone, const char **supp_feat)
{
    if (!*supp_feat)
        return;
    char *agreed = msgpack_zone_malloc(zone, 72);
    if (agreed) {
        bsf_features_intersect(*supp_feat, BSF_SUPPORTED_FEATURES, agreed, 72);
        *supp_feat = agreed;
    }
}

void bsf_nbsf_doc_submit(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                         bsf_command_t *cmd)
{
    bsf_nbsf_submit(rq, cmd, answer, d);
}

void bsf_nbsf_doc_deregister(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                             const bsf_binding_id_t *id)
{
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, d->deregister_kind);
    if (!cmd)
        return;
    cmd->id = *id;
    cmd->reason = BSF_REASON_PCF_REQUEST;
    bsf_nbsf_doc_submit(d, rq, cmd);
}

bsf_command_t *bsf_nbsf_doc_command(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                                    const bsf_h2_request_t *r, const bsf_binding_id_t *id)
{
    msgpack_object doc;
    bsf_command_t *cmd =
        bsf_nbsf_body_command(rq, r, id ? "application/merge-patch+json" : "application/json",
                              id ? d->update_kind : d->register_kind, &doc);
    if (!cmd)
        return NULL;
    bsf_problem_t p;
    const char **supp_feat = NULL;
    const bsf_nbsf_config_t *cfg = &rq->w->svc->cfg;
    if (id ? d->decode_patch(cfg, &doc, cmd, &p)
           : d->decode_binding(cfg, &doc, cmd, &supp_feat, &p)) {
        bsf_command_free(cmd);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return NULL;
    }
    if (id)
        cmd->id = *id;
    else
        bsf_nbsf_doc_agree_features(&cmd->zone, supp_feat);
    return cmd;
}

/* A registration (id NULL) or an update of `id`, handed to the engine. */
static void doc_write(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                      const bsf_h2_request_t *r, const bsf_binding_id_t *id)
{
    bsf_command_t *cmd = bsf_nbsf_doc_command(d, rq, r, id);
    if (cmd)
        bsf_nbsf_doc_submit(d, rq, cmd);
}

/* ---- discovery --------------------------------------------------------------------- */

/* Writes the JSON array of the records to the worker's json buffer: 0, or -1. */
static int render(bsf_nbsf_request_t *rq, const char *q_supp_feat, const bsf_record_t *first,
                  size_t stride, size_t n)
{
    msgpack_sbuffer *json = &rq->w->json;
    char agreed[72];
    const char *supp_feat = NULL;
    if (q_supp_feat) {
        bsf_features_intersect(q_supp_feat, BSF_SUPPORTED_FEATURES, agreed, sizeof agreed);
        supp_feat = agreed;
    }
    msgpack_sbuffer_clear(json);
    msgpack_sbuffer_write(json, "[", 1);
    for (size_t i = 0; i < n; i++) {
        const bsf_record_t *rec = (const bsf_record_t *)((const char *)first + i * stride);
        msgpack_object obj;
        size_t off = 0, len;
        const char *mp;
        if (bsf_record_binding_msgpack(rec, &rq->w->zone, &mp, &len) ||
            msgpack_unpack(mp, len, &off, &rq->w->zone, &obj) != MSGPACK_UNPACK_SUCCESS ||
            (i && msgpack_sbuffer_write(json, ",", 1)) ||
            bsf_json_write(&obj, json, NULL, supp_feat))
            return -1;
    }
    return msgpack_sbuffer_write(json, "]", 1);
}

void bsf_nbsf_doc_answer_discovery(bsf_nbsf_request_t *rq, int rc, const char *supp_feat,
                                   const bsf_record_t *first, size_t stride, size_t n,
                                   const char *what)
{
    bsf_nbsf_worker_t *w = rq->w;
    /* The records live in the snapshot's pages: render before ending it. */
    if (!rc && render(rq, supp_feat, first, stride, n))
        rc = -1;
    bsf_read_end(w->reader);
    if (rc) {
        BSF_ERROR("sbi", "%s binding discovery failed: %s", what,
                  rc == -1 ? "render" : bsf_strerror(rc));
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "the binding store failed");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    /* The spec answers 200 with an array (minItems 0): a miss is [] rather than 204. */
    bsf_nbsf_respond_json(rq, 200, NULL, 0, &w->json);
}

void bsf_nbsf_doc_discover(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                           const char *query, size_t query_len)
{
    bsf_problem_t p;
    msgpack_zone_clear(&rq->w->zone);
    if (d->discover(rq, query, query_len, &p))
        bsf_nbsf_respond_problem(rq, &p, NULL);
}

/* ---- routing ----------------------------------------------------------------------- */

/* A member request past the method and query checks: the id, then update or deregister. */
static void member(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                   const bsf_h2_request_t *r, const char *id_text, size_t id_len)
{
    bsf_binding_id_t id;
    rq->op = r->method[0] == 'D' ? BSF_SBI_OP_DEREGISTER : BSF_SBI_OP_UPDATE;
    if (!bsf_binding_id_parse(id_text, id_len, &id)) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "%s", d->not_found);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (rq->op == BSF_SBI_OP_DEREGISTER)
        bsf_nbsf_doc_deregister(d, rq, &id);
    else
        doc_write(d, rq, r, &id);
}

bool bsf_nbsf_doc_route(const bsf_nbsf_doc_resource_t *d, bsf_nbsf_request_t *rq,
                        const bsf_h2_request_t *r, const char *res, size_t res_len,
                        const char *query, size_t query_len)
{
    const char *id_text;
    size_t id_len;
    if (!bsf_nbsf_resource_match(res, res_len, d->name, &id_text, &id_len))
        return false;
    bool collection = id_len == 0;
    const char *m = r->method;
    if (collection && strcmp(m, "GET") == 0) {
        rq->op = BSF_SBI_OP_DISCOVER;
        bsf_nbsf_doc_discover(d, rq, query ? query : "", query_len);
        return true;
    }
    /* GET on the collection went above: the collection's other method is POST */
    if (bsf_nbsf_refuse_unless(rq, m, collection ? "GET, POST" : "DELETE, PATCH", query))
        return true;
    if (collection) {
        rq->op = BSF_SBI_OP_REGISTER;
        doc_write(d, rq, r, NULL);
        return true;
    }
    member(d, rq, r, id_text, id_len);
    return true;
}
