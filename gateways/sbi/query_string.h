/* The query part of a request URI (RFC 3986 §3.4) as name=value items separated by '&', the
 * way every Nbsf_Management discovery reads it. Percent-decoding lives here once; each
 * resource keeps its own parameters and the rules between them.
 *
 * Thread: none of its own; an iterator belongs to the caller's thread. */
#ifndef BSF_GATEWAYS_SBI_QUERY_STRING_H
#define BSF_GATEWAYS_SBI_QUERY_STRING_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/member_parse.h"

/* Percent-decodes `in` into `out` ('+' is a space, as in form encoding). Returns the decoded
 * length or -1 on a malformed escape or an encoded NUL. `out` needs `n` bytes. */
long bsf_percent_decode(const char *in, size_t n, char *out);

/* One item of the query. `name` is decoded and NUL-terminated when `name_ok`; `name_ok` is
 * false when the decoded name would not fit in `name` or its percent-encoding is malformed
 * (then `name` is ""). `raw` points into the query: the value, still encoded, `raw_len` bytes
 * (0 for an item without '='). */
typedef struct {
    char name[32];
    bool name_ok;
    const char *raw;
    size_t raw_len;
} bsf_query_item_t;

typedef struct {
    const char *query;
    size_t len, pos;
    char *buf; /* room for every decoded value: the query's length + 1, from the zone */
} bsf_query_iter_t;

/* Starts reading `query` (not NUL-terminated, `len` bytes). The decoded values are stored in
 * `zone` and live as long as it. Returns 0, or -ENOMEM. */
int bsf_query_iter_init(bsf_query_iter_t *it, const char *query, size_t len, msgpack_zone *zone);

/* The next non-empty item. Returns true with `*item` filled, false at the end. */
bool bsf_query_next(bsf_query_iter_t *it, bsf_query_item_t *item);

/* Decodes the value of `item` into the iterator's buffer, NUL-terminated: `*value` stays
 * valid as long as the zone. Returns its length, or -1 on a malformed percent-encoding. */
long bsf_query_value(bsf_query_iter_t *it, const bsf_query_item_t *item, char **value);

/* A member decoder of core's shape (bsf_member_snssai, bsf_mbs_session_id_decode), `out` of
 * its type: 0, or -1 with the problem set. */
typedef int (*bsf_query_member_fn)(bsf_member_ctx_t *c, const msgpack_object *o,
                                   const char *ptr, bsf_cause_t cause, void *out);

/* Decodes a parameter whose content is JSON (application/json, e.g. snssai, mbs-session-id):
 * the decoded value `v` (`n` bytes) parsed and handed to `decode` as the parameter `ptr`
 * ("query snssai"), its members in `zone` (they live as long as it). Returns 0, or -1 with
 * the problem set: by `decode`, or `cause` with "<ptr> <must_be>" when `v` is not JSON.
 * Thread: the caller's. */
int bsf_query_json_member(const char *v, size_t n, msgpack_zone *zone, const char *ptr,
                          bsf_cause_t cause, const char *must_be, bsf_query_member_fn decode,
                          void *out, bsf_problem_t *problem);

#endif
