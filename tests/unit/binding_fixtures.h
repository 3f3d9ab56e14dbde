/* UE and MBS binding and subscription documents of the unit tests (PcfForUeBinding,
 * PcfMbsBinding, BsfSubscription), decoded from JSON text and checked against the schema's
 * rules; the PCF binding's are in test_util.h. Part of bsf_test_util. Test thread only. */
#ifndef BSF_TESTS_UNIT_BINDING_FIXTURES_H
#define BSF_TESTS_UNIT_BINDING_FIXTURES_H

#include <msgpack.h>

#include "core/pcf_mbs_binding.h"
#include "core/pcf_ue_binding.h"
#include "core/problem.h"
#include "core/subscription.h"

/* Decodes `json` (parsed through `buf`; invalid JSON fails the test) into *b, its members in
 * `zone`, and checks the rules. Returns the cause, BSF_CAUSE_NONE when valid; *problem
 * (cleared first) says why not. */
bsf_cause_t tu_ue_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b, bsf_problem_t *problem);
bsf_cause_t tu_mbs_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b, bsf_problem_t *problem);
bsf_cause_t tu_sub_check(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_subscription_t *s, bsf_problem_t *problem);

/* The same for a document that must be valid: fails the test when it is not. */
void tu_ue_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                        bsf_pcf_ue_binding_t *b);
void tu_mbs_binding_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                         bsf_pcf_mbs_binding_t *b);
void tu_subscription_into(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone,
                          bsf_subscription_t *s);

#endif
