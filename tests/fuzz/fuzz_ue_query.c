/* libFuzzer target: the query of GET /pcf-ue-bindings (supi, gpsi, supp-feat; percent
 * encoding). A parsed query has supi or gpsi, and a refusal has a cause. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/pcf_ue_bindings.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t len, msgpack_zone *zone)
{
    bsf_ue_query_t q;
    bsf_problem_t problem;
    if (fz_parsed(bsf_ue_query_parse(text, len, zone, &q, &problem), &problem) && !q.supi &&
        !q.gpsi)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_with_zone(data, size, 1024, check);
    return 0;
}
