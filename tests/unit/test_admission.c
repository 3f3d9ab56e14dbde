/* gateways/admission: congestion states and anti-flapping, load shedding with the seed's
 * defaults (§3.4 truth table), overload onset/abatement (§3.27), priorities (§3.1), token
 * buckets (§3.28), the settings, the controller's decisions from real counts, and the
 * egress message priority series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/admission/admission.h"
#include "core/problem.h"
#include "gateways/admission/admission_settings.h"
#include "gateways/admission/message_profile.h"
#include "gateways/admission/priority_metrics.h"

/* The settings with bsfd's defaults (bsfd/config_keys_admission.c). */
static bsf_admission_settings_t default_settings(void)
{
    bsf_admission_settings_t s;
    memset(&s, 0, sizeof s);
    s.enabled = true;
    strcpy(s.priorities, "discovery=15\nregister=20\nderegister=16\nupdate=20\nother=20");
    s.interval_ms = 200;
    s.sample_count = 5;
    strcpy(s.cpu, "75\n80\n85\n90");
    strcpy(s.pending, "175\n200\n225\n250");
    strcpy(s.memory, "80\n85\n90\n95");
    strcpy(s.discard_priorities, "30\n24\n18\n14");
    strcpy(s.discard_percentages, "DOC 30-31:50\nL1 24-29:50 30-31:75\n"
                                  "L2 18-23:50 24-29:75 30-31:100\nCONGESTED 14-31:100");
    s.status = 503;
    strcpy(s.cause, "NF_CONGESTION_RISK");
    s.overload = true;
    strcpy(s.ov_cpu, "44:41\n49:47\n52:50");
    strcpy(s.ov_pending, "1260:1050\n1575:1470\n1890:1785");
    strcpy(s.ov_memory, "80:75\n90:85\n95:91");
    strcpy(s.reduction, "10\n25\n50");
    s.validity_s = 10;
    return s;
}

static bsf_admission_config_t default_config(void)
{
    bsf_admission_settings_t s = default_settings();
    bsf_admission_config_t c;
    char why[256];
    if (bsf_admission_settings_apply(&s, &c, why, sizeof why))
        fail_msg("%s", why);
    return c;
}

static void levels_and_anti_flapping(void **state)
{
    (void)state;
    bsf_admission_config_t c = default_config();
    assert_int_equal(bsf_adm_level(c.pending, 174), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_level(c.pending, 175), BSF_ADM_DOC);
    assert_int_equal(bsf_adm_level(c.pending, 210), BSF_ADM_L1);
    assert_int_equal(bsf_adm_level(c.pending, 1000), BSF_ADM_CONGESTED);
    uint32_t none[BSF_ADM_LEVELS] = BSF_ADM_NO_LEVELS;
    assert_int_equal(bsf_adm_level(none, UINT32_MAX - 1), BSF_ADM_NORMAL);
    /* seed §3.4 acceptance 5: count 3, DOC for 2 intervals stays NORMAL, 3 makes DOC */
    bsf_adm_machine_t m = {0};
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_DOC, 3), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_DOC, 3), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_NORMAL, 3), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_DOC, 3), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_DOC, 3), BSF_ADM_NORMAL);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_DOC, 3), BSF_ADM_DOC);
    /* a change of candidate restarts the count */
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_L1, 2), BSF_ADM_DOC);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_L2, 2), BSF_ADM_DOC);
    assert_int_equal(bsf_adm_machine_step(&m, BSF_ADM_L2, 2), BSF_ADM_L2);
}

/* Seed §3.4's derived truth table with the default discard priorities. */
static void shedding_truth_table(void **state)
{
    (void)state;
    bsf_admission_config_t c = default_config();
    const uint32_t prio[] = {15, 16, 20, 25, 28, 18};
    const char *expect[] = {
        [BSF_ADM_NORMAL] = "AAAAAA", [BSF_ADM_DOC] = "AAAAAA", [BSF_ADM_L1] = "AAARRA",
        [BSF_ADM_L2] = "AARRRR",     [BSF_ADM_CONGESTED] = "RRRRRR"};
    for (int s = BSF_ADM_NORMAL; s <= BSF_ADM_CONGESTED; s++)
        for (int i = 0; i < 6; i++) {
            bool discard = bsf_adm_discard(&c.shedding, (bsf_adm_state_t)s, prio[i], 0);
            if (discard != (expect[s][i] == 'R'))
                fail_msg("state %s priority %u", bsf_adm_state_name((bsf_adm_state_t)s),
                         prio[i]);
        }
    assert_false(bsf_adm_discard(&c.shedding, BSF_ADM_CONGESTED, 13, 0));
    assert_true(bsf_adm_discard(&c.shedding, BSF_ADM_DOC, 99, 0)); /* over 31 counts as 31 */
    /* percentage mode: L1, priority 25 → 50 %: draws below 50 discard */
    c.shedding.by_percentage = true;
    assert_true(bsf_adm_discard(&c.shedding, BSF_ADM_L1, 25, 49));
    assert_false(bsf_adm_discard(&c.shedding, BSF_ADM_L1, 25, 50));
    assert_true(bsf_adm_discard(&c.shedding, BSF_ADM_L1, 31, 74));
    assert_false(bsf_adm_discard(&c.shedding, BSF_ADM_L1, 23, 0));
    assert_true(bsf_adm_discard(&c.shedding, BSF_ADM_CONGESTED, 14, 99));
}

/* Seed §3.27 acceptance 1-3 with table 3-32. */
static void overload_onset_and_abatement(void **state)
{
    (void)state;
    bsf_admission_config_t c = default_config();
    unsigned l = bsf_adm_overload_level(&c.ov_pending, 0, 1300);
    assert_int_equal(l, 1);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1100), 1);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1000), 0);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1600), 2);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1500), 2);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1400), 1); /* < 1470 */
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 1900), 3);
    assert_int_equal(l = bsf_adm_overload_level(&c.ov_pending, l, 100), 0);
    assert_int_equal(bsf_adm_overload_level(&c.ov_cpu, 0, 53), 3);
}

static void priorities(void **state)
{
    (void)state;
    assert_int_equal(bsf_adm_priority_parse("0"), 0);
    assert_int_equal(bsf_adm_priority_parse("31"), 31);
    assert_int_equal(bsf_adm_priority_parse("32"), -1);
    assert_int_equal(bsf_adm_priority_parse("45"), -1);
    assert_int_equal(bsf_adm_priority_parse("-1"), -1);
    assert_int_equal(bsf_adm_priority_parse("1a"), -1);
    assert_int_equal(bsf_adm_priority_parse("007"), -1);
    assert_int_equal(bsf_adm_priority_parse(""), -1);
    assert_int_equal(bsf_adm_priority_parse(NULL), -1);
    bsf_admission_config_t c = default_config();
    bsf_admission_t *a = bsf_admission_new(&c);
    assert_non_null(a);
    assert_int_equal(bsf_admission_sbi_priority(a, "GET", NULL), 15);
    assert_int_equal(bsf_admission_sbi_priority(a, "POST", NULL), 20);
    assert_int_equal(bsf_admission_sbi_priority(a, "DELETE", NULL), 16);
    assert_int_equal(bsf_admission_sbi_priority(a, "POST", "3"), 3);
    assert_int_equal(bsf_admission_sbi_priority(a, "POST", "45"), 20); /* §3.4 acceptance 4 */
    assert_int_equal(bsf_admission_sbi_priority(a, "OPTIONS", NULL), 20);
    bsf_admission_free(a);
}

static void settings_errors(void **state)
{
    (void)state;
    char why[256];
    bsf_admission_config_t c;
    struct {
        const char *key;
        const char *value;
    } bad[] = {{"congestion.cpu_thresholds", "80\n70\n75\n90"},
               {"congestion.discard_priorities", "14\n18\n24\n30"},
               {"congestion.discard_percentages", "L4 1-2:50"},
               {"admission.priorities", "discovery=32"},
               {"overload.pending_thresholds", "100:200\n300:250\n400:350"},
               {"overload.reduction", "10\n101\n50"},
               {"ratelimit.routes", "register=x"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bsf_admission_settings_t s = default_settings();
        char *fields[] = {s.cpu, s.discard_priorities, s.discard_percentages, s.priorities,
                          s.ov_pending, s.reduction, s.route_rates};
        strcpy(fields[i], bad[i].value);
        assert_int_equal(bsf_admission_settings_apply(&s, &c, why, sizeof why), -1);
        if (strncmp(why, bad[i].key, strlen(bad[i].key)) != 0)
            fail_msg("%s: %s", bad[i].key, why);
    }
    bsf_admission_settings_t s = default_settings();
    s.memory[0] = '\0'; /* empty: the resource is not watched */
    strcpy(s.route_rates, "register=100\ndiscovery=5000");
    assert_int_equal(bsf_admission_settings_apply(&s, &c, why, sizeof why), 0);
    assert_int_equal(c.memory[0], UINT32_MAX);
    assert_int_equal(c.route_rate[BSF_ADM_OP_REGISTER], 100);
    assert_int_equal(c.route_rate[BSF_ADM_OP_DISCOVERY], 5000);
    assert_int_equal(c.route_rate[BSF_ADM_OP_DEREGISTER], 0);
}

static void token_bucket(void **state)
{
    (void)state;
    bsf_adm_bucket_t b = {0};
    uint64_t t = 1000000000ull;
    int taken = 0;
    for (int i = 0; i < 20; i++)
        taken += bsf_adm_bucket_take(&b, 10, 5, t);
    assert_int_equal(taken, 5); /* the burst */
    assert_false(bsf_adm_bucket_take(&b, 10, 5, t + 50000000ull));
    assert_true(bsf_adm_bucket_take(&b, 10, 5, t + 100000000ull)); /* 100 ms: one token */
    assert_true(bsf_adm_bucket_take(&b, 0, 0, t));                  /* no limit */
}

static size_t count_of(void *ctx)
{
    return *(size_t *)ctx;
}

/* The controller from a real count: the state, the shared decision, the OCI. */
static void controller(void **state)
{
    (void)state;
    bsf_admission_config_t c = default_config();
    c.sample_count = 2;
    uint32_t pend[BSF_ADM_LEVELS] = {2, 4, 6, 8};
    memcpy(c.pending, pend, sizeof pend);
    c.ov_pending = (bsf_adm_overload_thresholds_t){{5, 7, 9}, {3, 6, 8}};
    bsf_admission_t *a = bsf_admission_new(&c);
    size_t pending = 0;
    assert_int_equal(bsf_admission_add_resource(a, "pending", c.pending, count_of, &pending), 0);
    unsigned level, metric;
    uint64_t ts;
    uint32_t validity;
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_NORMAL);
    assert_true(bsf_admission_sbi_admit(a, 31));
    pending = 6;
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_NORMAL); /* one sample of L2 */
    assert_int_equal(bsf_admission_resource_level(a, 0), BSF_ADM_L2);
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_L2);
    assert_int_equal(bsf_admission_state(a), BSF_ADM_L2);
    assert_true(bsf_admission_sbi_admit(a, 15));
    assert_false(bsf_admission_sbi_admit(a, 18));
    assert_true(bsf_admission_oci(a, &level, &metric, &ts, &validity));
    assert_int_equal(level, 1); /* 6: L1 onset 5 */
    assert_int_equal(metric, 10);
    assert_int_equal(validity, 10);
    /* CPU over the CPU thresholds is no resource here: only the count counts */
    pending = 0;
    bsf_admission_sample(a, 0, 0);
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_NORMAL);
    /* after an overload a 0 metric is advertised for the validity period */
    assert_true(bsf_admission_oci(a, &level, &metric, &ts, &validity));
    assert_int_equal(level, 0);
    assert_int_equal(metric, 0);
    bsf_text_t out = {0};
    bsf_admission_write_metrics(a, &out);
    assert_non_null(strstr(out.data, "ocbsf_http_congestion_message_reject_total{state=\"L2\"} 1"));
    assert_non_null(strstr(out.data, "ocbsf_admission_resource_state{resource=\"pending\"} 0"));
    bsf_text_free(&out);
    bsf_admission_free(a);
}

/* A resource's thresholds replaced at run time: the next sample uses them. */
static void thresholds_at_run_time(void **state)
{
    (void)state;
    bsf_admission_config_t c = default_config();
    c.sample_count = 1;
    bsf_admission_t *a = bsf_admission_new(&c);
    size_t pending = 5;
    uint32_t high[BSF_ADM_LEVELS] = {50, 60, 70, 80}, low[BSF_ADM_LEVELS] = {1, 2, 5, 9};
    assert_int_equal(bsf_admission_add_resource(a, "queue", high, count_of, &pending), 0);
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_NORMAL);
    assert_int_equal(bsf_admission_set_thresholds(a, 0, low), 0);
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_L2); /* 5 >= the third */
    assert_int_equal(bsf_admission_resource_level(a, 0), BSF_ADM_L2);
    assert_int_equal(bsf_admission_set_thresholds(a, 0, high), 0);
    assert_int_equal(bsf_admission_sample(a, 0, 0), BSF_ADM_NORMAL);
    assert_int_equal(bsf_admission_set_thresholds(a, 1, low), -1); /* no such resource */
    assert_int_equal(bsf_admission_set_thresholds(NULL, 0, low), -1);
    bsf_admission_free(a);
}

/* Seed §3.33: the operator's status and cause per error condition. */
static void error_overrides(void **state)
{
    (void)state;
    bsf_cause_overrides_t o;
    char why[256];
    assert_int_equal(bsf_cause_overrides_parse("existing_binding_info_found=409\n"
                                               "optional_ie_incorrect=411:OptionalIeBad",
                                               &o, why, sizeof why),
                     0);
    bsf_cause_overrides_install(&o);
    assert_int_equal(bsf_cause_status(BSF_CAUSE_EXISTING_BINDING_INFO_FOUND), 409);
    assert_string_equal(bsf_cause_name(BSF_CAUSE_EXISTING_BINDING_INFO_FOUND),
                        "EXISTING_BINDING_INFO_FOUND");
    assert_int_equal(bsf_cause_status(BSF_CAUSE_OPTIONAL_IE_INCORRECT), 411);
    assert_string_equal(bsf_cause_name(BSF_CAUSE_OPTIONAL_IE_INCORRECT), "OptionalIeBad");
    assert_int_equal(bsf_cause_status(BSF_CAUSE_MANDATORY_IE_MISSING), 400); /* untouched */
    const char *bad[] = {"no_such_condition=400", "existing_binding_info_found=200",
                         "existing_binding_info_found=4099", "existing_binding_info_found",
                         "optional_ie_incorrect=400:bad cause", "optional_ie_incorrect=400:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (bsf_cause_overrides_parse(bad[i], &o, why, sizeof why) != -1)
            fail_msg("accepted %s", bad[i]);
    memset(&o, 0, sizeof o);
    bsf_cause_overrides_install(&o);
    assert_int_equal(bsf_cause_status(BSF_CAUSE_EXISTING_BINDING_INFO_FOUND), 403);
    for (int c = 1; c < BSF_CAUSE_COUNT; c++)
        assert_true(bsf_cause_id((bsf_cause_t)c)[0] != '\0');
}

/* Seed §3.1: rules in rulePriority order, first match, Always/IfNotPresent/Never. */
static void message_profile(void **state)
{
    (void)state;
    bsf_message_profile_t p;
    char why[256];
    assert_int_equal(bsf_message_profile_parse(
                         "messageID=any,rulePriority=5,interfaceType=Nbsf_Management,"
                         "messageType=Any,requestPriorityOverride=Never\n"
                         "messageID=reg,rulePriority=1,interfaceType=Nbsf_Management,"
                         "messageType=Register,requestPriorityOverride=Always,"
                         "requestPriorityValue=3,responsePriorityAssign=IfNotPresent,"
                         "responsePriorityValue=12\n"
                         "messageID=audit,rulePriority=2,interfaceType=Npcf_Binding_Audit,"
                         "messageType=Audit_Notify,requestPriorityOverride=IfNotPresent,"
                         "requestPriorityValue=11",
                         &p, why, sizeof why),
                     0);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.rules[0].message_id, "reg"); /* sorted */
    const bsf_mp_rule_t *r = bsf_message_profile_match(&p, BSF_MP_NBSF_MANAGEMENT,
                                                       BSF_ADM_OP_REGISTER);
    assert_non_null(r);
    assert_int_equal(bsf_mp_request_priority(r, 8), 3);  /* Always */
    assert_int_equal(bsf_mp_request_priority(r, -1), 3);
    assert_int_equal(bsf_mp_response_priority(r, 8), 8); /* IfNotPresent: the request's */
    assert_int_equal(bsf_mp_response_priority(r, -1), 12);
    r = bsf_message_profile_match(&p, BSF_MP_NBSF_MANAGEMENT, BSF_ADM_OP_DISCOVERY);
    assert_string_equal(r->message_id, "any");
    assert_int_equal(bsf_mp_request_priority(r, 8), 8); /* Never */
    assert_int_equal(bsf_mp_request_priority(r, -1), -1);
    assert_int_equal(bsf_mp_response_priority(r, 8), -1);
    assert_null(bsf_message_profile_match(&p, BSF_MP_NPCF_BINDING_AUDIT, BSF_ADM_OP_REGISTER));
    assert_int_equal(bsf_message_profile_egress(BSF_MP_NPCF_BINDING_AUDIT, BSF_MP_AUDIT_NOTIFY, -1),
                     -1); /* nothing installed */
    bsf_message_profile_install(&p);
    assert_int_equal(bsf_message_profile_egress(BSF_MP_NPCF_BINDING_AUDIT, BSF_MP_AUDIT_NOTIFY, -1),
                     11);
    assert_int_equal(bsf_message_profile_egress(BSF_MP_NPCF_BINDING_AUDIT, BSF_MP_AUDIT_NOTIFY, 4),
                     4);
    bsf_message_profile_install(&(bsf_message_profile_t){0});
    assert_int_equal(bsf_message_profile_parse("", &p, why, sizeof why), 0);
    assert_int_equal(p.n, 0);
    const char *bad[] = {"interfaceType=Nbsf_Management", /* no messageType */
                         "messageType=Register,requestPriorityOverride=Always", /* no value */
                         "messageType=Register,requestPriorityValue=32",
                         "messageType=Other", "messageType=Register,interfaceType=N7",
                         "messageType=Register,requestPriorityOverride=Sometimes",
                         "messageType=Register,noSuchField=1", "messageType"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (bsf_message_profile_parse(bad[i], &p, why, sizeof why) != -1)
            fail_msg("accepted %s", bad[i]);
}

/* Seed §3.1: the NRF requests' priorities, the seed's defaults without a rule. */
static void message_profile_nrf(void **state)
{
    (void)state;
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_REGISTER), 1);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_PATCH), 3);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_DEREGISTER), 2);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_DISCOVER), 1);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_ACCESS_TOKEN), 1);
    bsf_message_profile_t p;
    char why[256];
    assert_int_equal(bsf_message_profile_parse(
                         "messageID=tok,rulePriority=1,interfaceType=Nnrf,"
                         "messageType=AccessToken,requestPriorityOverride=Always,"
                         "requestPriorityValue=9\n"
                         "messageID=hb,rulePriority=2,interfaceType=Nnrf,"
                         "messageType=AutonomousNfPatch,requestPriorityOverride=IfNotPresent,"
                         "requestPriorityValue=6\n"
                         "messageID=rest,rulePriority=3,interfaceType=Nnrf,messageType=Any,"
                         "requestPriorityOverride=Never",
                         &p, why, sizeof why),
                     0);
    bsf_message_profile_install(&p);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_ACCESS_TOKEN), 9);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_PATCH), 6);
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_DEREGISTER), 2); /* Never: default */
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_NF_DISCOVER), 1);
    /* an Nnrf rule is not a rule for the SBI server's requests */
    assert_null(bsf_message_profile_match(&p, BSF_MP_NBSF_MANAGEMENT, BSF_ADM_OP_REGISTER));
    bsf_message_profile_install(&(bsf_message_profile_t){0});
    assert_int_equal(bsf_message_profile_nrf(BSF_MP_ACCESS_TOKEN), 1);
    assert_int_equal(bsf_message_profile_parse("messageType=NfRegister,interfaceType=Nrf", &p,
                                               why, sizeof why),
                     -1);
}

/* Seed §3.1's egress series: labels as the profile names them, NA for no priority (or one
 * out of range), an answer's eval_priority its own, untagged requests not counted, and the
 * status slots bounded. */
static void egress_priority_metrics(void **state)
{
    (void)state;
    bsf_mp_egress_tag_t audit = {BSF_MP_EGRESS_AUDIT_NOTIFY, -1};
    bsf_mp_metrics_request(audit, 10);
    bsf_mp_metrics_request(audit, 10);
    bsf_mp_metrics_request((bsf_mp_egress_tag_t){BSF_MP_EGRESS_NOTIFY, 24}, 24);
    bsf_mp_metrics_request((bsf_mp_egress_tag_t){BSF_MP_EGRESS_NF_PATCH, 40}, -1);
    bsf_mp_metrics_request((bsf_mp_egress_tag_t){BSF_MP_EGRESS_NONE, 1}, 1);
    bsf_mp_metrics_answer(audit, 7, 200);
    bsf_mp_metrics_answer(audit, -1, 404);
    bsf_mp_metrics_answer((bsf_mp_egress_tag_t){BSF_MP_EGRESS_NONE, -1}, 1, 201);
    bsf_text_t t = {0};
    bsf_mp_metrics_write_requests(&t);
    bsf_mp_metrics_write_answers(&t);
    const char *want[] = {
        "ocbsf_http_message_priority_request_count_total{direction=\"out\",rcvd_priority="
        "\"NA\",eval_priority=\"10\",interface_type=\"Npcf_Binding_Audit\","
        "msg_type=\"Audit_Notify\"} 2\n",
        "ocbsf_http_message_priority_request_count_total{direction=\"out\",rcvd_priority="
        "\"24\",eval_priority=\"24\",interface_type=\"Nbsf_Management\","
        "msg_type=\"Notify\"} 1\n",
        "ocbsf_http_message_priority_request_count_total{direction=\"out\",rcvd_priority="
        "\"NA\",eval_priority=\"NA\",interface_type=\"Nnrf\","
        "msg_type=\"AutonomousNfPatch\"} 1\n",
        "ocbsf_http_message_priority_response_count_total{direction=\"in\",rcvd_priority="
        "\"7\",eval_priority=\"7\",interface_type=\"Npcf_Binding_Audit\","
        "msg_type=\"Audit_Notify\",response_code=\"200\"} 1\n",
        "ocbsf_http_message_priority_response_count_total{direction=\"in\",rcvd_priority="
        "\"NA\",eval_priority=\"NA\",interface_type=\"Npcf_Binding_Audit\","
        "msg_type=\"Audit_Notify\",response_code=\"404\"} 1\n"};
    size_t len = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(t.data, want[i]))
            fail_msg("missing %s in\n%s", want[i], t.data);
        len += strlen(want[i]);
    }
    assert_int_equal(t.len, len); /* nothing else: the untagged ones were not counted */
    bsf_text_free(&t);
    atomic_int codes[2] = {0};
    assert_int_equal(bsf_mp_code_slot(codes, 2, 200), 0);
    assert_int_equal(bsf_mp_code_slot(codes, 2, 404), 1);
    assert_int_equal(bsf_mp_code_slot(codes, 2, 200), 0);
    assert_int_equal(bsf_mp_code_slot(codes, 2, 503), -1);
    char label[4];
    assert_true(bsf_mp_priority_label(31, label) && strcmp(label, "31") == 0);
    assert_true(bsf_mp_priority_label(32, label) && strcmp(label, "NA") == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_and_anti_flapping),
        cmocka_unit_test(shedding_truth_table),
        cmocka_unit_test(overload_onset_and_abatement),
        cmocka_unit_test(priorities),
        cmocka_unit_test(settings_errors),
        cmocka_unit_test(token_bucket),
        cmocka_unit_test(controller),
        cmocka_unit_test(thresholds_at_run_time),
        cmocka_unit_test(error_overrides),
        cmocka_unit_test(message_profile),
        cmocka_unit_test(message_profile_nrf),
        cmocka_unit_test(egress_priority_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
