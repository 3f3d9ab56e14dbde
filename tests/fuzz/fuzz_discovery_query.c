/* libFuzzer target: the query string of GET /pcfBindings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/discovery_query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_zone zone;
    msgpack_zone_init(&zone, 2048);
    bsf_discovery_query_t q;
    bsf_problem_t problem;
    if (bsf_discovery_query_parse((const char *)data, size, &zone, &q, &problem) == 0) {
        /* A query that parses has exactly one UE address kind. */
        if (q.kind != BSF_UE_ADDR_IPV4 && q.kind != BSF_UE_ADDR_IPV6 && q.kind != BSF_UE_ADDR_MAC)
            abort();
    } else if (problem.cause == BSF_CAUSE_NONE) {
        abort(); /* every refusal names a cause */
    }
    msgpack_zone_destroy(&zone);
    return 0;
}
