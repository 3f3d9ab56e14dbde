/* libFuzzer target: the query of GET /pcf-ue-bindings (supi, gpsi, supp-feat; percent
 * encoding). A parsed query has supi or gpsi, and a refusal has a cause. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/sbi/pcf_ue_bindings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_zone zone;
    msgpack_zone_init(&zone, 1024);
    bsf_ue_query_t q;
    bsf_problem_t problem;
    int rc = bsf_ue_query_parse((const char *)data, size, &zone, &q, &problem);
    if ((rc == 0 && !q.supi && !q.gpsi) || (rc != 0 && problem.cause == BSF_CAUSE_NONE))
        abort();
    msgpack_zone_destroy(&zone);
    return 0;
}
