/* A request in progress on the Nbsf_Management service: its headers and its answer. Every
 * answer is recorded in the worker's metrics and copied to the feed (when on); when the client
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

/* A request header by lowercase name, or NULL. */
const char *bsf_nbsf_header(const bsf_h2_request_t *r, const char *name);

#endif
