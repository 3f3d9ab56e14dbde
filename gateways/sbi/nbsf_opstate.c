/* The operational state on Nbsf_Management; see nbsf_opstate.h. */
#include "gateways/sbi/nbsf_opstate.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/nbsf_exchange.h"

/* A request's kind from its method: every POST of the API registers (pcfBindings,
 * pcf-ue-bindings, pcf-mbs-bindings). */
static bsf_opreq_t classify(const char *method, bsf_sbi_op_t *op)
{
    if (strcmp(method, "POST") == 0) {
        *op = BSF_SBI_OP_REGISTER;
        return BSF_OPREQ_NEW_SESSION;
    }
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
        *op = BSF_SBI_OP_DISCOVER;
        return BSF_OPREQ_DISCOVERY;
    }
    *op = strcmp(method, "DELETE") == 0  ? BSF_SBI_OP_DEREGISTER
          : strcmp(method, "PATCH") == 0 ? BSF_SBI_OP_UPDATE
                                         : BSF_SBI_OP_OTHER;
    return BSF_OPREQ_IN_SESSION;
}

void bsf_nbsf_opstate_refuse(bsf_nbsf_request_t *rq, bsf_opverdict_t why)
{
    bsf_opstate_count_refusal(BSF_OPIF_SBI);
    int status = (int)bsf_opstate_http_status();
    char cause[64], detail[96];
    bsf_opstate_cause(cause, sizeof cause);
    if (why == BSF_OPVERDICT_STOPPING)
        snprintf(detail, sizeof detail, "the BSF is stopping; retry on another instance");
    else
        snprintf(detail, sizeof detail, "the BSF is in %s",
                 bsf_opstate_name(bsf_opstate_get()));
    /* TS 29.500 §5.2.7: ProblemDetails with the configured status and cause. */
    json_t *pd = json_pack("{s:s, s:i, s:s, s:s, s:s}", "title", "Service Unavailable",
                           "status", status, "detail", detail, "cause", cause, "instance",
                           rq->instance);
    char *text = pd ? json_dumps(pd, JSON_COMPACT) : NULL;
    json_decref(pd);
    bsf_h2_header_t retry = {"retry-after", "5"};
    bsf_nbsf_respond_body(rq, status, text ? "application/problem+json" : NULL, &retry, 1,
                          text, text ? strlen(text) : 0);
    free(text);
}

bool bsf_nbsf_opstate_refused(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r)
{
    bsf_sbi_op_t op;
    bsf_opverdict_t v = bsf_opstate_check(classify(r->method, &op));
    if (v == BSF_OPVERDICT_ADMIT)
        return false;
    const char *q = memchr(r->path, '?', r->path_len);
    snprintf(rq->instance, sizeof rq->instance, "%.*s",
             (int)(q ? (size_t)(q - r->path) : r->path_len), r->path);
    rq->op = op;
    bsf_nbsf_opstate_refuse(rq, v);
    return true;
}
