/* libFuzzer target: the query of GET /pcf-mbs-bindings (mbs-session-id as percent-encoded
 * JSON, supp-feat). A parsed query has a session with TMGI or SSM; a refusal has a cause. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/pcf_mbs_bindings.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t len, msgpack_zone *zone)
{
    bsf_mbs_query_t q;
    bsf_problem_t problem;
    if (fz_parsed(bsf_mbs_query_parse(text, len, zone, &q, &problem), &problem) &&
        !q.session.has_tmgi && !q.session.has_ssm)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_with_zone(data, size, 1024, check);
    return 0;
}
