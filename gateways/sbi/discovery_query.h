/* The query string of GET /pcfBindings: percent-decoding, the parameters TS 29.521 defines,
 * and the rules between them (exactly one UE address; ipDomain only with ipv4Addr). */
#ifndef BSF_GATEWAYS_SBI_DISCOVERY_QUERY_H
#define BSF_GATEWAYS_SBI_DISCOVERY_QUERY_H

#include <msgpack.h>

#include "core/discovery.h"
#include "core/problem.h"

/* Parses `query` (the part after '?', not NUL-terminated). Decoded strings are stored in
 * `zone`. Returns 0, or -1 with a problem naming the parameter. */
int bsf_discovery_query_parse(const char *query, size_t len, msgpack_zone *zone,
                              bsf_discovery_query_t *out, bsf_problem_t *problem);

#endif
