/* libFuzzer target: the query of GET /pcf-mbs-bindings (mbs-session-id as percent-encoded
 * JSON, supp-feat). A parsed query has a session with TMGI or SSM; a refusal has a cause. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/pcf_mbs_bindings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_zone zone;
    msgpack_zone_init(&zone, 1024);
    bsf_mbs_query_t q;
    bsf_problem_t problem;
    int rc = bsf_mbs_query_parse((const char *)data, size, &zone, &q, &problem);
    if ((rc == 0 && !q.session.has_tmgi && !q.session.has_ssm) ||
        (rc != 0 && problem.cause == BSF_CAUSE_NONE))
        abort();
    msgpack_zone_destroy(&zone);
    return 0;
}
