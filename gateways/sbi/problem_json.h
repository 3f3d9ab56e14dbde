/* ProblemDetails (TS 29.571) and ExtProblemDetails (TS 29.521) bodies. */
#ifndef BSF_GATEWAYS_SBI_PROBLEM_JSON_H
#define BSF_GATEWAYS_SBI_PROBLEM_JSON_H

#include <stdbool.h>

#include <msgpack.h>

#include "core/problem.h"

/* Renders the problem as JSON into `out` (cleared first). `instance` is the request path
 * (NULL or empty: no instance member);
 * `binding` (may be NULL) is a PcfBinding whose pcfSmFqdn / pcfSmIpEndPoints are added
 * (ExtProblemDetails). Returns 0 or -1. */
int bsf_problem_render(const bsf_problem_t *p, const char *instance,
                       const msgpack_object *binding, msgpack_sbuffer *out);

/* The same with every member of `ext` (a map) added: MbsExtProblemDetails, whose
 * MbsBindingResp the engine builds. Returns 0 or -1. */
int bsf_problem_render_ext(const bsf_problem_t *p, const char *instance,
                           const msgpack_object *ext, msgpack_sbuffer *out);

/* A ProblemDetails whose status and cause the operator configured (XFCC and User-Agent
 * refusals): title, status, detail, cause and (when not empty) instance. Returns 0 or -1. */
int bsf_problem_render_custom(int status, const char *title, const char *cause,
                              const char *detail, const char *instance, msgpack_sbuffer *out);

/* A cause token as configuration may give one: 1..63 of A-Z, 0-9 and '_'. */
bool bsf_problem_cause_valid(const char *cause);

#endif
