/* The /subscriptions operations (TS 29.521 API 1.5.0). */
#include "gateways/sbi/subscriptions.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "gateways/sbi/json_codec.h"
#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/nbsf_write.h"

static void answer(bsf_nbsf_request_t *rq, const bsf_command_t *cmd, const void *ctx)
{
    (void)ctx;
    if (cmd->status != BSF_CMD_OK) {
        bsf_nbsf_respond_problem(rq, &cmd->problem, NULL);
        return;
    }
    if (cmd->kind == BSF_CMD_SUB_DELETE) {
        bsf_nbsf_respond_empty(rq, 204);
        return;
    }
    msgpack_object sub;
    msgpack_sbuffer *json = &rq->w->json;
    msgpack_sbuffer_clear(json);
    if (bsf_nbsf_unpack_result(rq, cmd, &sub) || bsf_json_write(&sub, json, NULL, NULL)) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "cannot render the subscription");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (cmd->kind == BSF_CMD_SUB_REPLACE) {
        bsf_nbsf_respond_json(rq, 200, NULL, 0, json);
        return;
    }
    char id[BSF_BINDING_ID_TEXT_LEN + 1], location[512];
    bsf_binding_id_format(&cmd->id, id);
    snprintf(location, sizeof location, "%s/nbsf-management/v1/%s/%s", rq->w->svc->api_root,
             BSF_SUBSCRIPTIONS, id);
    bsf_h2_header_t h = {"location", location};
    bsf_nbsf_respond_json(rq, 201, &h, 1, json);
}

/* The expiry the BSF grants (TS 29.521 §4.2.6.2: it may be shorter than asked): what was
 * asked, capped at now + subscriptions.max_expiry (0: no cap); that cap too when none was
 * asked. An expiry that has passed is refused. Returns 0, or -1 with `p` set. */
static int grant_expiry(const bsf_nbsf_service_t *svc, bsf_subscription_t *s, msgpack_zone *zone,
                        bsf_problem_t *p)
{
    int64_t now = (int64_t)bsf_clock_wall_ms();
    if (s->expiry_ms >= 0 && s->expiry_ms <= now)
        return bsf_problem_fail(p, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/expiry",
                                "is not in the future");
    uint64_t max = svc->cfg.sub_max_expiry_ms;
    if (!max || (s->expiry_ms >= 0 && (uint64_t)(s->expiry_ms - now) <= max))
        return 0;
    if (bsf_subscription_set_expiry(s, now + (int64_t)max, zone))
        return bsf_problem_fail(p, BSF_CAUSE_SYSTEM_FAILURE, "/expiry", "out of memory");
    return 0;
}

/* POST on the collection or PUT on member `id` (NULL for POST). */
static void write_subscription(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                               const bsf_binding_id_t *id)
{
    msgpack_object doc;
    if (bsf_nbsf_parse_body(rq, r, "application/json", &doc))
        return;
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, id ? BSF_CMD_SUB_REPLACE : BSF_CMD_SUB_CREATE);
    if (!cmd)
        return;
    bsf_problem_t p;
    bsf_subscription_t *s = &cmd->subscription;
    if (bsf_subscription_decode(&doc, &cmd->zone, s, &p) ||
        bsf_subscription_check_rules(s, &p) ||
        grant_expiry(rq->w->svc, s, &cmd->zone, &p)) {
        bsf_command_free(cmd);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    bsf_nbsf_doc_agree_features(&cmd->zone, &s->supp_feat);
    if (id)
        cmd->id = *id;
    bsf_nbsf_submit(rq, cmd, answer, NULL);
}

static void member(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r, const char *id_text,
                   size_t id_len)
{
    bsf_binding_id_t id;
    if (!bsf_binding_id_parse(id_text, id_len, &id)) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND,
                        "no subscription with this id");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    if (r->method[0] == 'P') {
        write_subscription(rq, r, &id);
        return;
    }
    bsf_command_t *cmd = bsf_nbsf_new_command(rq, BSF_CMD_SUB_DELETE);
    if (!cmd)
        return;
    cmd->id = id;
    cmd->reason = BSF_REASON_UNSUBSCRIBED;
    bsf_nbsf_submit(rq, cmd, answer, NULL);
}

bool bsf_subscriptions_route(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r, const char *res,
                             size_t res_len, const char *query, size_t query_len)
{
    const char *id_text;
    size_t id_len;
    (void)query_len;
    if (!bsf_nbsf_resource_match(res, res_len, BSF_SUBSCRIPTIONS, &id_text, &id_len))
        return false;
    bool collection = id_len == 0;
    rq->op = BSF_SBI_OP_OTHER;
    const char *m = r->method;
    if (bsf_nbsf_refuse_unless(rq, m, collection ? "POST" : "DELETE, PUT", query))
        return true;
    if (collection)
        write_subscription(rq, r, NULL);
    else
        member(rq, r, id_text, id_len);
    return true;
}
