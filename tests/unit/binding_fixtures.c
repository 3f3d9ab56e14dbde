/* UE and MBS binding and subscription documents of the unit tests (see binding_fixtures.h). */
#include "tests/unit/binding_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/test_util.h"

typedef enum { DOC_UE, DOC_MBS, DOC_SUB } doc_kind_t;

static const char *const doc_names[] = {"UE binding", "MBS binding", "subscription"};

/* `json` into *out (the struct of `kind`), rules checked: nonzero when it does not decode or
 * breaks a rule. */
static int decode(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone, doc_kind_t kind,
                  void *out, bsf_problem_t *problem)
{
    msgpack_object o = tu_json(json, buf, zone);
    memset(problem, 0, sizeof *problem);
    switch (kind) {
    case DOC_UE:
        return bsf_pcf_ue_binding_decode(&o, zone, out, problem) ||
               bsf_pcf_ue_binding_check_rules(out, problem);
    case DOC_MBS:
        return bsf_pcf_mbs_binding_decode(&o, zone, out, problem) ||
               bsf_pcf_mbs_binding_check_rules(out, problem);
    case DOC_SUB:
        return bsf_subscription_decode(&o, zone, out, problem) ||
               bsf_subscription_check_rules(out, problem);
    }
    return -1;
}

static bsf_cause_t check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         doc_kind_t kind, void *out, bsf_problem_t *problem)
{
    return decode(json, buf, zone, kind, out, problem) ? problem->cause : BSF_CAUSE_NONE;
}

static void decode_valid(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         doc_kind_t kind, void *out)
{
    bsf_problem_t p;
    if (decode(json, buf, zone, kind, out, &p))
        fail_msg("bad %s %s: %s", doc_names[kind], json, p.detail);
}

bsf_cause_t tu_ue_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b, bsf_problem_t *problem)
{
    return check(json, buf, zone, DOC_UE, b, problem);
}

bsf_cause_t tu_mbs_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem)
{
    return check(json, buf, zone, DOC_MBS, b, problem);
}

bsf_cause_t tu_sub_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_subscription_t *s, bsf_problem_t *problem)
{
    return check(json, buf, zone, DOC_SUB, s, problem);
}

void tu_ue_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b)
{
    decode_valid(json, buf, zone, DOC_UE, b);
}

void tu_mbs_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b)
{
    decode_valid(json, buf, zone, DOC_MBS, b);
}

void tu_subscription_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                          bsf_subscription_t *s)
{
    decode_valid(json, buf, zone, DOC_SUB, s);
}
