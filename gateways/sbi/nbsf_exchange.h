/* A request in progress on the Nbsf_Management service: its headers, its resource path and
 * its answer (with the refusals every resource shares). Every answer is recorded in the worker's metrics and copied to the feed (when on); when the client
 * went away (rq->stream NULL) only that is done. Worker thread of the request only. */
#ifndef BSF_GATEWAYS_SBI_NBSF_EXCHANGE_H
#define BSF_GATEWAYS_SBI_NBSF_EXCHANGE_H

#include "gateways/sbi/nbsf_internal.h"

/* Answers with a JSON body (not owned; sent before return). */
void bsf_nbsf_respond_json(bsf_nbsf_request_t *rq, int status, const bsf_h2_header_t *headers,
                           size_t n_headers, const msgpack_sbuffer *body);
/* Answers with ProblemDetails (with the binding in it when given); `headers` too in the _with
 * form. When the problem cannot be rendered, the status goes out without a body. */
void bsf_nbsf_respond_problem(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                              const msgpack_object *binding);
void bsf_nbsf_respond_problem_with(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                                   const msgpack_object *binding, const bsf_h2_header_t *headers,
                                   size_t n_headers);
/* Answers with a ProblemDetails of a configured status and cause (bsf_problem_render_custom);
 * a HEAD request gets the status alone. */
void bsf_nbsf_respond_custom_problem(bsf_nbsf_request_t *rq, bool head, int status,
                                     const char *title, const char *cause, const char *detail);
/* Answers with ProblemDetails plus every member of the map `ext` (MbsExtProblemDetails). */
void bsf_nbsf_respond_problem_ext(bsf_nbsf_request_t *rq, const bsf_problem_t *p,
                                  const msgpack_object *ext);
/* Answers with `body` (not owned; sent before return) of the given content type. */
void bsf_nbsf_respond_body(bsf_nbsf_request_t *rq, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t len);
/* Answers without a body: no headers, or the given ones. */
void bsf_nbsf_respond_empty(bsf_nbsf_request_t *rq, int status);
void bsf_nbsf_respond_headers(bsf_nbsf_request_t *rq, int status, const bsf_h2_header_t *headers,
                              size_t n_headers);

/* 405 to `method` with Allow: `allow` (e.g. "GET, POST"): a METHOD_NOT_ALLOWED ProblemDetails,
 * or to HEAD the status and the header alone (an answer to HEAD has no body). */
void bsf_nbsf_refuse_method(bsf_nbsf_request_t *rq, const char *method, const char *allow);
/* 400 INVALID_QUERY_PARAM to a `method` that takes no query: detail "<method> takes no query
 * parameters", `param` (e.g. "query", "query <name>"; copied) as the invalid parameter. */
void bsf_nbsf_refuse_query(bsf_nbsf_request_t *rq, const char *method, const char *param);
/* Refuses a `method` that is not one of `allow` (as bsf_nbsf_refuse_method) or, when it is,
 * a request with a query (`has_query`; as bsf_nbsf_refuse_query with "query"): true when it
 * answered, false when the request goes on. */
bool bsf_nbsf_refuse_unless(bsf_nbsf_request_t *rq, const char *method, const char *allow,
                            bool has_query);

/* Whether `res` (the path after /nbsf-management/v1/, without the query) is the collection
 * `name` or one of its members ("<name>/<id>", the id not empty and without '/'): true with
 * the id in *id / *id_len (pointing into `res`; *id_len 0 for the collection), false (outputs
 * untouched) when it is neither. Any thread: reads only its arguments. */
bool bsf_nbsf_resource_match(const char *res, size_t res_len, const char *name, const char **id,
                             size_t *id_len);

/* A request header by lowercase name, or NULL. */
const char *bsf_nbsf_header(const bsf_h2_request_t *r, const char *name);

#endif
