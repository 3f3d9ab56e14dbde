/* JSON bodies <-> msgpack documents.
 *
 * Requests are parsed with yajl's events packed straight into msgpack, the form the core
 * rules read (json_parse.c: strict RFC 8259, UTF-8 checked, duplicate names refused).
 * Responses are written straight from msgpack to JSON text (json_codec.c). Both run on any
 * thread; they keep no state between calls. */
#ifndef BSF_GATEWAYS_SBI_JSON_CODEC_H
#define BSF_GATEWAYS_SBI_JSON_CODEC_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/problem.h"

#define BSF_JSON_MAX_DEPTH 16

/* Parses a JSON text (an object or an array at the top) into a msgpack document in `out`
 * (cleared first), then unpacks it into `zone` as `obj`, whose strings point into `out`:
 * keep `out` while `obj` is used. Returns 0, or -1 with an INVALID_MSG_FORMAT problem (the
 * byte and the reason in its detail), or SYSTEM_FAILURE when memory ran out. */
int bsf_json_to_msgpack(const char *text, size_t len, msgpack_sbuffer *out, msgpack_zone *zone,
                        msgpack_object *obj, bsf_problem_t *problem);

/* Writes `obj` as JSON text appended to `out`. At the top level of an object, members named
 * in `skip` (NULL-terminated list) are left out and, when `supp_feat` is not NULL, the
 * "suppFeat" member's value is replaced by it (or added when absent). */
int bsf_json_write(const msgpack_object *obj, msgpack_sbuffer *out, const char *const *skip,
                   const char *supp_feat);

#endif
