/* ProblemDetails (TS 29.571) and ExtProblemDetails (TS 29.521) bodies. */
#ifndef BSF_GATEWAYS_SBI_PROBLEM_JSON_H
#define BSF_GATEWAYS_SBI_PROBLEM_JSON_H

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

#endif
