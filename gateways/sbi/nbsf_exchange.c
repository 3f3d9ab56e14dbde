/* A request in progress on the Nbsf_Management service: its headers, its resource path, and
 * its answer (with the answer's metrics and its copy to the feed). Used by the router
 * (nbsf_service.c) and the resources (pcf_bindings.c, nbsf_doc_resource.c, subscriptions.c);
 * it calls none of them. */
#include "gateways/sbi/nbsf_exchange.h"

#include <string.h>

#include "common/clock.h"
#include "gateways/sbi/problem_json.h"
#include "gateways/sbi/sbi_error_log.h"

static void record(bsf_nbsf_request_t *rq, int status)
{
    bsf_sbi_metrics_record(rq->w->metrics, rq->op, status,
                           bsf_clock_mono_ns() - rq->received_ns);
}

/* Sends the answer (unless the client went away) and its copy to the feed. */
static void answer(bsf_nbsf_request_t *rq, int status, const char *content_type,
                   const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                   size_t body_len)
{
    bool sent = rq->stream != NULL;
    if (sent)
        bsf_h2_respond(rq->stream, status, content_type, headers, n_headers, body, body_len);
    if (rq->feed) {
        if (sent)
            bsf_sbi_feed_response(rq->feed, status, content_type, headers, n_headers, body,
                                  body_len);
        else
            bsf_sbi_feed_txn_free(rq->feed);
        rq->feed = NULL;
    }
}

void bsf_nbsf_respond_json(bsf_nbsf_request_t *rq, int status, const bsf_h2_header_t *headers,
                           size_t n_headers, const msgpack_sbuffer *body)
{
    record(rq, status);
    answer(rq, status, "application/json", headers, n_headers, body->data, body->size);
}

void bsf_nbsf_respond_body(bsf_nbsf_request_t *rq, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t len)
{
    record(rq, status);
    answer(rq, status, content_type, headers, n_headers, body, len);
}

void bsf_nbsf_respond_empty(bsf_nbsf_request_t *rq, int status)
{
    bsf_nbsf_respond_headers(rq, status, NULL, 0);
}

void bsf_nbsf_respond_headers(bsf_nbsf_request_t *rq, int status, const bsf_h2_header_t *headers,
                              size_t n_headers)
{
    record(rq, status);
    answer(rq, status, NULL, headers, n_headers, NULL, 0);
}

/* Seeds §3.9 and §3.11: the detail the answer carries (`copy` when it is enhanced) and the
 * error log's line. */
static const bsf_problem_t *told(bsf_nbsf_request_t *rq, const bsf_problem_t *p, int status,
                                 bsf_problem_t *copy)
{
    if (bsf_sbi_errors_enhanced()) {
        *copy = *p;
        bsf_sbi_errors_detail(p->cause, status, p->detail, copy->detail, sizeof copy->detail);
        p = copy;
    }
    bsf_sbi_errors_answered(status, bsf_cause_title(p->cause), p->detail,
                            bsf_cause_name(p->cause), rq->subscriber);
    return p;
}

/* A ProblemDetails with the binding in it, or with every member of `ext` (when not NULL). */
static void respond_problem(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                            const msgpack_object *binding, const msgpack_object *ext,
                            const bsf_h2_header_t *headers, size_t n_headers)
{
    int status = bsf_cause_status(p->cause);
    bsf_problem_t copy;
    p = told(rq, p, status, &copy);
    record(rq, status);
    msgpack_sbuffer *out = &rq->w->json;
    if (!rq->stream || (ext ? bsf_problem_render_ext(p, rq->instance, ext, out)
                            : bsf_problem_render(p, rq->instance, binding, out))) {
        answer(rq, status, NULL, headers, n_headers, NULL, 0);
        return;
    }
    answer(rq, status, "application/problem+json", headers, n_headers, out->data, out->size);
}

void bsf_nbsf_respond_problem_with(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                                   const msgpack_object *binding, const bsf_h2_header_t *headers,
                                   size_t n_headers)
{
    respond_problem(rq, p, binding, NULL, headers, n_headers);
}

void bsf_nbsf_respond_problem_ext(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                                  const msgpack_object *ext)
{
    respond_problem(rq, p, NULL, ext, NULL, 0);
}

void bsf_nbsf_respond_custom_problem(bsf_nbsf_request_t *rq, bool head, int status,
                                     const char *title, const char *cause, const char *detail)
{
    char text[BSF_PROBLEM_TEXT_MAX];
    bsf_sbi_errors_detail(BSF_CAUSE_NONE, status, detail, text, sizeof text);
    bsf_sbi_errors_answered(status, title, text, cause, rq->subscriber);
    detail = text;
    record(rq, status);
    msgpack_sbuffer *out = &rq->w->json;
    if (head || !rq->stream ||
        bsf_problem_render_custom(status, title, cause, detail, rq->instance, out)) {
        answer(rq, status, NULL, NULL, 0, NULL, 0);
        return;
    }
    answer(rq, status, "application/problem+json", NULL, 0, out->data, out->size);
}

void bsf_nbsf_respond_problem(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                              const msgpack_object *binding)
{
    bsf_nbsf_respond_problem_with(rq, p, binding, NULL, 0);
}

void bsf_nbsf_refuse_method(bsf_nbsf_request_t *rq, const char *method, const char *allow)
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

void bsf_nbsf_refuse_query(bsf_nbsf_request_t *rq, const char *method, const char *param)
{
    bsf_problem_t p;
    bsf_problem_set(&p, BSF_CAUSE_INVALID_QUERY_PARAM, "%s takes no query parameters", method);
    bsf_problem_add_param(&p, param, "is not a parameter of this operation");
    bsf_nbsf_respond_problem(rq, &p, NULL);
}

/* Whether `method` is one of the comma-separated `allow`. */
static bool method_allowed(const char *method, const char *allow)
{
    size_t n = strlen(method);
    for (const char *a = allow; *a; a += strspn(a, ", ")) {
        size_t len = strcspn(a, ", ");
        if (len == n && memcmp(a, method, n) == 0)
            return true;
        a += len;
    }
    return false;
}

bool bsf_nbsf_refuse_unless(bsf_nbsf_request_t *rq, const char *method, const char *allow,
                            bool has_query)
{
    if (!method_allowed(method, allow))
        bsf_nbsf_refuse_method(rq, method, allow);
    else if (has_query)
        bsf_nbsf_refuse_query(rq, method, "query");
    else
        return false;
    return true;
}

bool bsf_nbsf_resource_match(const char *res, size_t res_len, const char *name, const char **id,
                             size_t *id_len)
{
    const size_t nlen = strlen(name);
    if (res_len < nlen || memcmp(res, name, nlen) != 0 || (res_len > nlen && res[nlen] != '/'))
        return false;
    const char *member = res + nlen + 1;
    size_t member_len = res_len == nlen ? 0 : res_len - nlen - 1;
    if (res_len > nlen && (member_len == 0 || memchr(member, '/', member_len)))
        return false;
    *id = member;
    *id_len = member_len;
    return true;
}

const char *bsf_nbsf_header(const bsf_h2_request_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}
