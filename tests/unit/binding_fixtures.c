/* UE and MBS binding documents of the unit tests (see binding_fixtures.h). */
#include "tests/unit/binding_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/test_util.h"

/* `json` into *b (a bsf_pcf_mbs_binding_t when `mbs`, else a bsf_pcf_ue_binding_t), rules
 * checked: nonzero when it does not decode or breaks a rule. */
static int decode(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone, bool mbs, void *b,
                  bsf_problem_t *problem)
{
    msgpack_object o = tu_json(json, buf, zone);
    memset(problem, 0, sizeof *problem);
    if (mbs)
        return bsf_pcf_mbs_binding_decode(&o, zone, b, problem) ||
               bsf_pcf_mbs_binding_check_rules(b, problem);
    return bsf_pcf_ue_binding_decode(&o, zone, b, problem) ||
           bsf_pcf_ue_binding_check_rules(b, problem);
}

bsf_cause_t tu_ue_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b, bsf_problem_t *problem)
{
    return decode(json, buf, zone, false, b, problem) ? problem->cause : BSF_CAUSE_NONE;
}

bsf_cause_t tu_mbs_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem)
{
    return decode(json, buf, zone, true, b, problem) ? problem->cause : BSF_CAUSE_NONE;
}

void tu_ue_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b)
{
    bsf_problem_t p;
    if (decode(json, buf, zone, false, b, &p))
        fail_msg("bad UE binding %s: %s", json, p.detail);
}

void tu_mbs_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b)
{
    bsf_problem_t p;
    if (decode(json, buf, zone, true, b, &p))
        fail_msg("bad MBS binding %s: %s", json, p.detail);
}
