/* libFuzzer target: the query string of GET /pcfBindings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/discovery_query.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A query that parses has exactly one UE address kind; a refusal has a cause. */
static void check(const char *text, size_t len, msgpack_zone *zone)
{
    bsf_discovery_query_t q;
    bsf_problem_t problem;
    if (fz_parsed(bsf_discovery_query_parse(text, len, zone, &q, &problem), &problem) &&
        q.kind != BSF_UE_ADDR_IPV4 && q.kind != BSF_UE_ADDR_IPV6 && q.kind != BSF_UE_ADDR_MAC)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_with_zone(data, size, 2048, check);
    return 0;
}
