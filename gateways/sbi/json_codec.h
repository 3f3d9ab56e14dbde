/* JSON bodies <-> msgpack documents.
 *
 * Requests are parsed with jansson (strict RFC 8259, UTF-8 checked, duplicate keys refused)
 * and converted to msgpack, the form the core rules read. Responses are written straight
 * from msgpack to JSON text. */
#ifndef BSF_GATEWAYS_SBI_JSON_CODEC_H
#define BSF_GATEWAYS_SBI_JSON_CODEC_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/problem.h"

#define BSF_JSON_MAX_DEPTH 16

/* Parses a JSON text into a msgpack document in `out` (cleared first), then unpacks it into
 * `zone` as `obj`. Returns 0, or -1 with an INVALID_MSG_FORMAT problem. */
int bsf_json_to_msgpack(const char *text, size_t len, msgpack_sbuffer *out, msgpack_zone *zone,
                        msgpack_object *obj, bsf_problem_t *problem);

/* Writes `obj` as JSON text appended to `out`. At the top level of an object, members named
 * in `skip` (NULL-terminated list) are left out and, when `supp_feat` is not NULL, the
 * "suppFeat" member's value is replaced by it (or added when absent). */
int bsf_json_write(const msgpack_object *obj, msgpack_sbuffer *out, const char *const *skip,
                   const char *supp_feat);

#endif
