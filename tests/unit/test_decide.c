/* core/decide: the decide step of a registration (SamePcf, collisions) and the
 * cross-site precedence of colliding registrations, with which binding the owner site
 * deregisters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/decide.h"
#include "core/hlc.h"
#include "tests/unit/test_util.h"

#define SESSION "\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1}"

static bsf_binding_view_t view(const bsf_pcf_binding_t *b, uint8_t id, int64_t origin,
                               int64_t sender)
{
    bsf_binding_view_t v = {.binding = b, .created_hlc = id, .origin_ts_ms = origin,
                            .sender_ts_ms = sender};
    memset(v.id.b, id, 16);
    return v;
}

static void collision_precedence(void **state)
{
    (void)state;
    bsf_pcf_binding_t *old = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                     "\"pcfFqdn\":\"pcf-a.example.com\"}");
    bsf_pcf_binding_t *req = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                     "\"pcfFqdn\":\"pcf-b.example.com\"}");
    bsf_decide_config_t on = {true}, off = {false};
    bsf_register_decision_t d;

    /* Newer by origination timestamp: replaces. */
    bsf_binding_view_t v = view(old, 1, 1000, -1);
    bsf_register_request_t r = {req, 2000, -1};
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 1);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REPLACED_BY_COLLISION);
    /* Older by origination timestamp: refused. */
    r.origin_ts_ms = 500;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_COLLISION);
    assert_int_equal(d.problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
    assert_string_equal(d.problem.detail, "Existing binding information found in DB");
    /* Equal origination: the sender timestamps decide. */
    r.origin_ts_ms = 1000;
    v.sender_ts_ms = 3000;
    r.sender_ts_ms = 2000;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_COLLISION);
    r.sender_ts_ms = 4000;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    /* No timestamps: arrival order, the request wins. */
    r.origin_ts_ms = r.sender_ts_ms = -1;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 1);
    /* Detection off: both are kept. */
    r.origin_ts_ms = 500;
    v.origin_ts_ms = 1000;
    bsf_decide_register(&r, &v, 1, &off, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 0);
    /* Same PCF re-registering: replaces even when its timestamp is older. */
    bsf_pcf_binding_t *again = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-a.example.com\"}");
    bsf_register_request_t r2 = {again, 1, -1};
    bsf_decide_register(&r2, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REREGISTERED);
    /* Another SUPI on the same address is no collision. */
    bsf_pcf_binding_t *other = tu_bind("{\"supi\":\"imsi-001010000000002\",\"dnn\":\"internet\","
                                       "\"snssai\":{\"sst\":1},\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-b.example.com\"}");
    bsf_register_request_t r3 = {other, 1, -1};
    bsf_decide_register(&r3, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 0);
}

static void same_pcf_feature(void **state)
{
    (void)state;
    bsf_pcf_binding_t *bound = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-a.example.com\","
                                       "\"pcfSmFqdn\":\"pcf-a-sm.example.com\"}");
    bsf_pcf_binding_t *req = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.2\","
                                     "\"pcfFqdn\":\"pcf-b.example.com\",\"paraCom\":{"
                                     "\"supi\":\"imsi-001010000000001\",\"dnn\":\"INTERNET\"}}");
    bsf_binding_view_t v = view(bound, 1, -1, -1);
    bsf_register_request_t r = {req, -1, -1};
    bsf_decide_config_t on = {true};
    bsf_register_decision_t d;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_SAME_PCF);
    assert_ptr_equal(d.existing, &v);
    assert_int_equal(d.problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
    /* A paraCom for another DNN is free. */
    bsf_pcf_binding_t *free_req = tu_bind("{" SESSION ",\"ipv4Addr\":\"10.0.0.2\","
                                          "\"pcfFqdn\":\"pcf-b.example.com\",\"paraCom\":{"
                                          "\"supi\":\"imsi-001010000000001\",\"dnn\":\"ims\"}}");
    r.binding = free_req;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
}

static void test_precedence_order(void **state)
{
    tu_doc_t *c = *state;
    bsf_pcf_binding_t *b = tu_site_binding(c, "pcf1.example.com");
    /* origination timestamps decide when both are present and differ */
    bsf_binding_view_t a = tu_site_view(b, 1, 1, 5000, 200, 100),
                       z = tu_site_view(b, 2, 1, 9000, 100, 900);
    assert_int_equal(bsf_registration_precedence_cmp(&a, &z), 1);
    assert_int_equal(bsf_registration_precedence_cmp(&z, &a), -1);
    /* then sender timestamps */
    a.origin_ts_ms = z.origin_ts_ms;
    assert_int_equal(bsf_registration_precedence_cmp(&a, &z), -1);
    a.origin_ts_ms = -1;
    z.sender_ts_ms = -1;
    /* then the created HLC */
    assert_int_equal(bsf_registration_precedence_cmp(&a, &z), -1);
    /* then the site */
    z.created_hlc = a.created_hlc;
    assert_int_equal(bsf_registration_precedence_cmp(&a, &z), -1);
    assert_int_equal(bsf_registration_precedence_cmp(&z, &a), 1);
    /* then the binding id; a registration against itself is 0 */
    bsf_binding_view_t a2 = tu_site_view(b, 1, 2, 5000, -1, -1);
    a.created_hlc = a2.created_hlc;
    assert_int_equal(bsf_registration_precedence_cmp(&a2, &a), 1);
    assert_int_equal(bsf_registration_precedence_cmp(&a, &a), 0);
}

static void test_owner_deregisters_its_older_binding(void **state)
{
    tu_doc_t *c = *state;
    bsf_pcf_binding_t *pcf1 = tu_site_binding(c, "pcf1.example.com");
    bsf_pcf_binding_t *pcf2 = tu_site_binding(c, "pcf2.example.com");
    bsf_decide_config_t on = {true}, off = {false};
    bsf_register_decision_t d;
    /* site 2's newer registration arrives at site 1, which holds its own older one */
    bsf_binding_view_t remote = tu_site_view(pcf2, 2, 10, 9000, -1, -1);
    bsf_binding_view_t candidates[3] = {tu_site_view(pcf1, 1, 5, 8000, -1, -1),   /* own, older */
                                        tu_site_view(pcf1, 3, 7, 7000, -1, -1),   /* site 3's */
                                        remote};                          /* itself */
    bsf_decide_replicated_registration(&remote, candidates, 3, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 1);
    assert_ptr_equal(d.replaced[0], &candidates[0]);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REPLACED_BY_COLLISION);
    /* site 3 (not the owner of candidates[0]) deregisters its own only */
    bsf_decide_replicated_registration(&remote, candidates, 3, 3, &on, &d);
    assert_int_equal(d.n_replaced, 1);
    assert_ptr_equal(d.replaced[0], &candidates[1]);
    /* an older remote registration replaces nothing: its owner will yield */
    bsf_binding_view_t old_remote = tu_site_view(pcf2, 2, 11, 1000, -1, -1);
    bsf_decide_replicated_registration(&old_remote, candidates, 2, 1, &on, &d);
    assert_int_equal(d.n_replaced, 0);
    /* the origination timestamp beats the HLC */
    old_remote.origin_ts_ms = 50;
    candidates[0].origin_ts_ms = 40;
    bsf_decide_replicated_registration(&old_remote, candidates, 2, 1, &on, &d);
    assert_int_equal(d.n_replaced, 1);
    /* the same PCF: a re-registration */
    bsf_binding_view_t same = tu_site_view(pcf1, 2, 12, 9500, -1, -1);
    candidates[0].origin_ts_ms = -1;
    bsf_decide_replicated_registration(&same, candidates, 1, 1, &on, &d);
    assert_int_equal(d.n_replaced, 1);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REREGISTERED);
    /* detection off: nothing */
    bsf_decide_replicated_registration(&remote, candidates, 3, 1, &off, &d);
    assert_int_equal(d.n_replaced, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(collision_precedence, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(same_pcf_feature, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(test_precedence_order, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(test_owner_deregisters_its_older_binding, tu_doc_setup,
                                        tu_doc_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
