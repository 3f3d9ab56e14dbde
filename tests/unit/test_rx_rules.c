/* Pure rules of the Rx gateway: result-code patterns, retry decisions, realm rules, timeout
 * precedence, request kinds, UE address decoding, peer and route items. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_commands.h"
#include "gateways/diameter/rx_congestion.h"
#include "gateways/diameter/rx_cpus.h"
#include "gateways/diameter/rx_kind.h"
#include "gateways/diameter/rx_realm.h"
#include "gateways/diameter/rx_repaving_rules.h"
#include "gateways/diameter/rx_retry.h"
#include "gateways/diameter/rx_routes.h"
#include "gateways/diameter/rx_ue_addr.h"

static void cpu_lists(void **state)
{
    (void)state;
    cpu_set_t set;
    char err[128];
    assert_int_equal(bsf_rx_cpus_parse("", &set, err, sizeof err), 0);
    assert_int_equal(bsf_rx_cpus_parse("0", &set, err, sizeof err), 1);
    assert_true(CPU_ISSET(0, &set));
    assert_int_equal(bsf_rx_cpus_parse("2-4\n7", &set, err, sizeof err), 4);
    assert_true(CPU_ISSET(2, &set) && CPU_ISSET(4, &set) && CPU_ISSET(7, &set));
    assert_false(CPU_ISSET(5, &set));
    assert_int_equal(bsf_rx_cpus_parse("1\n1-2", &set, err, sizeof err), 2); /* overlaps */
    const char *bad[] = {"x", "-1", "1-", "3-1", "1 ", "1,2", "99999", "0-1024", "\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_cpus_parse(bad[i], &set, err, sizeof err), -1);
}

/* Rules with the configuration's defaults (seed §3.26 tables 3-24 to 3-26, 3-29). */
static bsf_rx_cong_rules_t default_congestion_rules(bool by_percentage)
{
    bsf_diameter_settings_t s;
    memset(&s, 0, sizeof s);
    s.congestion_samples = 5;
    s.congestion_mode = by_percentage;
    strcpy(s.congestion_cpu, "60\n70\n75\n80");
    strcpy(s.congestion_queue, "6300\n7200\n8100\n9000");
    strcpy(s.congestion_discard_priorities, "27\n19\n17\n15");
    strcpy(s.congestion_discard_percentages,
           "DOC 27-31:50\nL1 19-26:50 27-31:75\nL2 17-18:50 19-26:75 27-31:100\n"
           "CONGESTED 15-31:100");
    strcpy(s.congestion_priorities, "default=6\nrar=7");
    s.congestion_priority_rules[0] = '\0';
    bsf_rx_cong_rules_t r;
    char why[256];
    if (bsf_rx_cong_rules_from_settings(&s, &r, why, sizeof why))
        fail_msg("%s", why);
    return r;
}

static void congestion_states(void **state)
{
    (void)state;
    bsf_rx_cong_rules_t r = default_congestion_rules(false);
    assert_int_equal(bsf_rx_cong_level(r.queue, 6299), BSF_RX_CONG_NORMAL);
    assert_int_equal(bsf_rx_cong_level(r.queue, 6300), BSF_RX_CONG_DOC);
    assert_int_equal(bsf_rx_cong_level(r.queue, 8100), BSF_RX_CONG_L2);
    assert_int_equal(bsf_rx_cong_level(r.cpu_pct, 100), BSF_RX_CONG_CONGESTED);
    /* acceptance 1: 12 pending with DOC at 10, 5 samples: NORMAL for 4 samples, then DOC */
    r.queue[0] = 10;
    bsf_rx_cong_t c = {0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(bsf_rx_cong_sample(&c, &r, 5, 12), BSF_RX_CONG_NORMAL);
    assert_int_equal(bsf_rx_cong_sample(&c, &r, 5, 12), BSF_RX_CONG_DOC);
    /* the higher resource decides; an interrupted streak starts again */
    for (int i = 0; i < 4; i++)
        assert_int_equal(bsf_rx_cong_sample(&c, &r, 85, 0), BSF_RX_CONG_DOC);
    assert_int_equal(bsf_rx_cong_sample(&c, &r, 5, 12), BSF_RX_CONG_DOC); /* back to DOC */
    for (int i = 0; i < 4; i++)
        assert_int_equal(bsf_rx_cong_sample(&c, &r, 85, 0), BSF_RX_CONG_DOC);
    assert_int_equal(bsf_rx_cong_sample(&c, &r, 85, 0), BSF_RX_CONG_CONGESTED);
    for (int i = 0; i < 4; i++)
        assert_int_equal(bsf_rx_cong_sample(&c, &r, 0, 0), BSF_RX_CONG_CONGESTED);
    assert_int_equal(bsf_rx_cong_sample(&c, &r, 0, 0), BSF_RX_CONG_NORMAL);
    assert_string_equal(bsf_rx_cong_state_name(BSF_RX_CONG_L1), "L1");
}

static void congestion_shedding(void **state)
{
    (void)state;
    bsf_rx_cong_rules_t r = default_congestion_rules(false);
    /* priorities: DRMP first, then the command's, then the default */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, -1), 6);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_RAR, -1, -1), 7);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_RAR, 2, -1), 2);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, 16, -1), 6); /* DRMP is 0-15 */
    /* acceptance 5: DRMP 2 and OC-Message-Priority 30 -> 30; OC is 0-31 */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, 2, 30), 30);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, 0), 0);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, 2, 32), 2);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, 4294967295LL), 6);
    /* acceptance 2: in DOC (discard 27) priority 27 is discarded, 26 is not */
    assert_true(bsf_rx_cong_discard(&r, BSF_RX_CONG_DOC, 27, 0));
    assert_false(bsf_rx_cong_discard(&r, BSF_RX_CONG_DOC, 26, 0));
    assert_true(bsf_rx_cong_discard(&r, BSF_RX_CONG_CONGESTED, 15, 99));
    assert_false(bsf_rx_cong_discard(&r, BSF_RX_CONG_NORMAL, 31, 0));
    /* acceptance 4: percentage mode in L1: priority 28 -> 75 %, 20 -> 50 %, 10 -> none */
    r = default_congestion_rules(true);
    unsigned shed28 = 0, shed20 = 0, shed10 = 0;
    for (uint32_t draw = 0; draw < 100; draw++) {
        shed28 += bsf_rx_cong_discard(&r, BSF_RX_CONG_L1, 28, draw);
        shed20 += bsf_rx_cong_discard(&r, BSF_RX_CONG_L1, 20, draw);
        shed10 += bsf_rx_cong_discard(&r, BSF_RX_CONG_L1, 10, draw);
    }
    assert_int_equal(shed28, 75);
    assert_int_equal(shed20, 50);
    assert_int_equal(shed10, 0);
}

static void congestion_settings(void **state)
{
    (void)state;
    uint32_t four[4];
    char why[256];
    assert_int_equal(bsf_rx_cong_parse_levels("1\n2\n3\n4", 100, four, why, sizeof why), 0);
    const char *bad_levels[] = {"", "1\n2\n3", "1\n2\n3\n4\n5", "1\n1\n2\n3",
                                "0\n1\n2\n3", "1\n2\n3\n101", "a\n2\n3\n4", "1 \n2\n3\n4"};
    for (size_t i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; i++)
        assert_int_equal(bsf_rx_cong_parse_levels(bad_levels[i], 100, four, why, sizeof why), -1);
    assert_int_equal(bsf_rx_cong_parse_discard_priorities("32\n20\n20\n0", four, why,
                                                          sizeof why),
                     0);
    assert_int_equal(bsf_rx_cong_parse_discard_priorities("15\n17\n19\n27", four, why,
                                                          sizeof why),
                     -1);
    bsf_rx_cong_rules_t r;
    memset(&r, 0, sizeof r);
    const char *bad_pct[] = {"DOC", "HIGH 1-2:50", "DOC 2-1:50", "DOC 1-2:101", "DOC 1-32:5",
                             "DOC 1-2", "DOC 1-2:50x",
                             /* a priority out of range without -HI (found by fuzz_config) */
                             "DOC 231:50", "L1 99:10"};
    for (size_t i = 0; i < sizeof bad_pct / sizeof bad_pct[0]; i++)
        assert_int_equal(bsf_rx_cong_parse_percentages(bad_pct[i], &r, why, sizeof why), -1);
    const char *bad_prio[] = {"default", "dpr=3", "aar=32", "aar=-1", "=3"};
    for (size_t i = 0; i < sizeof bad_prio / sizeof bad_prio[0]; i++)
        assert_int_equal(bsf_rx_cong_parse_priorities(bad_prio[i], &r, why, sizeof why), -1);
    assert_int_equal(bsf_rx_cong_parse_priorities("AAR=31", &r, why, sizeof why), 0);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, -1), 31);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, -1, -1), 0);
}

/* The message priority profile: rules tried in order, conditions on the command and on the
 * DRMP and OC-Message-Priority values with the seed's six operators. */
static void congestion_priority_rules(void **state)
{
    (void)state;
    bsf_rx_cong_rules_t r = default_congestion_rules(false);
    char why[256];
    assert_int_equal(bsf_rx_cong_parse_priority_rules("cmd=aar oc>=28 priority=30\n"
                                                      "drmp<3 priority=1\n"
                                                      "cmd=RAR  drmp!=7 oc<=4 priority=20\n"
                                                      "oc==9 priority=12\n"
                                                      "oc>20 priority=25\n"
                                                      "oc>=10 oc<=12 priority=31\n"
                                                      "cmd=str drmp>0 priority=9",
                                                      &r, why, sizeof why),
                     0);
    assert_int_equal(r.n_priority_rules, 7);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, 28), 30);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, 2, 31), 30); /* first match */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, 2, 31), 1);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_RAR, 5, 4), 20);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_RAR, 7, 4), 4);  /* drmp!=7 fails */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_RAR, -1, 4), 4);  /* no DRMP: fails */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_ASR, -1, 9), 12);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_ASR, -1, 21), 25);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_ASR, -1, 20), 20); /* no rule: value */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_ASR, -1, 11), 31); /* a range */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_ASR, 3, 13), 13);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, 4294967295LL), 6); /* range */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, 16, -1), 6);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, 1, -1), 1);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, 4, -1), 9);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, -1), 6); /* the command's */
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_OTHER, -1, -1), 6);  /* the default */
    /* AAR-I and AAR-U apart: new sessions shed first */
    assert_int_equal(bsf_rx_cong_parse_priority_rules("cmd=aar-i priority=28\ncmd=aar-u priority=2",
                                                      &r, why, sizeof why),
                     0);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_I, -1, -1), 28);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_AAR_U, -1, -1), 2);
    assert_int_equal(bsf_rx_cong_priority(&r, BSF_RX_STR, -1, -1), 6);
    assert_int_equal(bsf_rx_cong_parse_priority_rules("", &r, why, sizeof why), 0);
    assert_int_equal(r.n_priority_rules, 0);
    const char *bad[] = {"oc>=28",          "priority=3 priority=4", "cmd=dpr priority=1",
                         "drmp<16 priority=1", "oc=>3 priority=1",   "oc>=32 priority=1",
                         "oc>1 oc>2 oc>3 oc>4 oc>5 priority=1", "priority=32", "cmd= priority=1",
                         "drmp priority=1", "oc>=3priority=1",      "x=1 priority=1",
                         "priority=-1",     "cmd=aar cmd=str priority=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bsf_rx_cong_parse_priority_rules(bad[i], &r, why, sizeof why), -1);
        assert_non_null(strstr(why, "priority=N"));
    }
    char many[33 * 12 + 1] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, "priority=1\n");
    assert_int_equal(bsf_rx_cong_parse_priority_rules(many, &r, why, sizeof why), -1);
    assert_string_equal(why, "at most 32 rules");
}

static void code_patterns(void **state)
{
    (void)state;
    bsf_rx_code_pattern_t p;
    char err[128];
    assert_int_equal(bsf_rx_code_pattern_parse("5***", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 5012));
    assert_true(bsf_rx_code_pattern_match(&p, 5999));
    assert_false(bsf_rx_code_pattern_match(&p, 4012));
    assert_false(bsf_rx_code_pattern_match(&p, 0));
    assert_int_equal(bsf_rx_code_pattern_parse("3002", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 3002));
    assert_false(bsf_rx_code_pattern_match(&p, 3003));
    assert_int_equal(bsf_rx_code_pattern_parse("50*2", false, &p, err, sizeof err), 0);
    assert_true(bsf_rx_code_pattern_match(&p, 5012));
    assert_false(bsf_rx_code_pattern_match(&p, 5013));
    /* never a success code, never a malformed pattern */
    const char *bad[] = {"2001", "2***", "****", "*001", "500", "50012", "5a**", "", "0***"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_code_pattern_parse(bad[i], false, &p, err, sizeof err), -1);
    /* a set of them, as the configuration holds it */
    bsf_rx_code_set_t set;
    assert_int_equal(bsf_rx_code_set_parse("3002\n5***", false, &set, err, sizeof err), 0);
    assert_int_equal(set.n, 2);
    assert_true(bsf_rx_code_set_match(&set, 3002));
    assert_true(bsf_rx_code_set_match(&set, 5065));
    assert_false(bsf_rx_code_set_match(&set, 3004));
    assert_false(bsf_rx_code_set_match(&set, 2001));
    assert_int_equal(bsf_rx_code_set_parse("5***\n2001", false, &set, err, sizeof err), -1);
    assert_non_null(strstr(err, "2001"));
    assert_int_equal(bsf_rx_code_set_parse("", false, &set, err, sizeof err), 0);
    assert_int_equal(set.n, 0);
}

static void originator(void **state)
{
    (void)state;
    assert_int_equal(bsf_rx_retry_originator("pcf1", "pcf1", false), BSF_RX_ORIGINATOR_DESTINATION);
    assert_int_equal(bsf_rx_retry_originator("pcf1", "PCF1", true), BSF_RX_ORIGINATOR_DESTINATION);
    assert_int_equal(bsf_rx_retry_originator("pcf1", "dra1", true), BSF_RX_ORIGINATOR_INTERMEDIATE);
    assert_int_equal(bsf_rx_retry_originator("", "pcf1", true), BSF_RX_ORIGINATOR_INTERMEDIATE);
    assert_int_equal(bsf_rx_retry_originator(NULL, "pcf1", false), BSF_RX_ORIGINATOR_DESTINATION);
}

static bsf_rx_code_set_t codes_5xxx(void)
{
    bsf_rx_code_set_t set;
    char err[64];
    assert_int_equal(bsf_rx_code_set_parse("5***\n3002", false, &set, err, sizeof err), 0);
    return set;
}

static void retry_wanted(void **state)
{
    (void)state;
    bsf_rx_code_set_t set = codes_5xxx();
    bsf_rx_retry_policy_t p = {true, &set, true, 1, false, BSF_RX_ORIGINATOR_ANY};
    bsf_rx_outcome_t o = {false, 5012, BSF_RX_ORIGINATOR_DESTINATION};
    assert_true(bsf_rx_retry_wanted(&p, &o));
    o.code = 2001;
    assert_false(bsf_rx_retry_wanted(&p, &o)); /* success: never */
    o.code = 4001;
    assert_false(bsf_rx_retry_wanted(&p, &o)); /* not configured */
    o.timeout = true;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    p.on_timeout = false;
    assert_false(bsf_rx_retry_wanted(&p, &o));
    /* originator filter: timeouts are not filtered, answers are */
    p.on_timeout = true;
    p.originator = BSF_RX_ORIGINATOR_DESTINATION;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    o.timeout = false;
    o.code = 3002;
    o.originator = BSF_RX_ORIGINATOR_INTERMEDIATE;
    assert_false(bsf_rx_retry_wanted(&p, &o));
    p.originator = BSF_RX_ORIGINATOR_INTERMEDIATE;
    assert_true(bsf_rx_retry_wanted(&p, &o));
    p.enabled = false;
    assert_false(bsf_rx_retry_wanted(&p, &o));
}

static void retry_next_peer(void **state)
{
    (void)state;
    bsf_rx_code_set_t set = codes_5xxx();
    bsf_rx_retry_policy_t p = {true, &set, true, 2, false, BSF_RX_ORIGINATOR_ANY};
    bool tried[3] = {true, false, false};
    /* seed 3.15 test 3: MaxRetry 2, no cycle back, 2 peers -> exactly 2 attempts */
    assert_int_equal(bsf_rx_retry_next(&p, 0, 2, tried, 0), 1);
    tried[1] = true;
    assert_int_equal(bsf_rx_retry_next(&p, 1, 2, tried, 1), -1);
    /* cycle back: the third attempt goes to the first peer again */
    p.cycle_back = true;
    assert_int_equal(bsf_rx_retry_next(&p, 1, 2, tried, 1), 0);
    assert_int_equal(bsf_rx_retry_next(&p, 2, 2, tried, 0), -1); /* max reached */
    /* no alternate peer (no routing table): no retry, even with cycle back */
    bool one[1] = {true};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 1, one, 0), -1);
    /* MaxRetryCount 0 is read as 1 */
    p.max_retries = 0;
    bool t3[3] = {true, false, false};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 3, t3, 0), 1);
    assert_int_equal(bsf_rx_retry_next(&p, 1, 3, t3, 1), -1);
    /* untried peers come in order of preference */
    p.max_retries = 5;
    bool t4[3] = {false, true, false};
    assert_int_equal(bsf_rx_retry_next(&p, 0, 3, t4, 1), 0);
}

static bsf_diameter_settings_t settings(void)
{
    bsf_diameter_settings_t s;
    memset(&s, 0, sizeof s);
    snprintf(s.realm, sizeof s.realm, "bsf.example.com");
    s.timeout_ms = 4000;
    return s;
}

static void realm_rules(void **state)
{
    (void)state;
    bsf_diameter_settings_t s = settings();
    bool ow;
    /* all flags off: everything passes, nothing is overwritten */
    assert_int_equal(bsf_rx_realm_check_request(&s, "other.com"), BSF_RX_REALM_OK);
    assert_int_equal(bsf_rx_realm_check_binding(&s, "other.com", "pcf.com", &ow), BSF_RX_REALM_OK);
    assert_false(ow);
    /* seed 3.12 test 1: Validate.Realm and another realm: 3003 */
    s.validate_realm = true;
    assert_int_equal(bsf_rx_realm_check_request(&s, "other.com"), BSF_RX_REALM_NOT_OURS);
    assert_int_equal(bsf_rx_realm_check_request(&s, NULL), BSF_RX_REALM_NOT_OURS);
    assert_int_equal(bsf_rx_realm_check_request(&s, "BSF.example.com"), BSF_RX_REALM_OK);
    /* test 2: Validate.Binding.Realm and a binding of another realm: 3003 */
    s.validate_binding_realm = true;
    assert_int_equal(bsf_rx_realm_check_binding(&s, "bsf.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_NOT_BINDINGS);
    assert_int_equal(bsf_rx_realm_check_binding(&s, "pcf1.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_OK);
    assert_false(ow); /* already equal */
    /* a binding without a realm fails no check */
    assert_int_equal(bsf_rx_realm_check_binding(&s, "x", NULL, &ow), BSF_RX_REALM_OK);
    /* overwrite, with and without the binding-realm check */
    s.overwrite_realm = true;
    s.validate_binding_realm = false;
    assert_int_equal(bsf_rx_realm_check_binding(&s, "bsf.example.com", "pcf1.example.com", &ow),
                     BSF_RX_REALM_OK);
    assert_true(ow);
}

static void timeouts_and_kinds(void **state)
{
    (void)state;
    bsf_diameter_settings_t s = settings();
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_I), 4000);
    s.timeout_ms = 6000;
    s.timeout_aar_ms = 3000;
    /* seed 3.22 test 2: message level wins, the others take the interface level */
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_I), 3000);
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_AAR_U), 3000);
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_RAR), 6000);
    s.timeout_str_ms = 5000;
    assert_int_equal(bsf_rx_kind_timeout_ms(&s, BSF_RX_STR), 5000);

    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_NONE, false), BSF_RX_AAR_I);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_INITIAL, false), BSF_RX_AAR_I);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_NONE, true), BSF_RX_AAR_U);
    assert_int_equal(bsf_rx_kind_classify(265, BSF_RX_REQUEST_TYPE_UPDATE, false), BSF_RX_AAR_U);
    assert_int_equal(bsf_rx_kind_classify(275, -1, true), BSF_RX_STR);
    assert_int_equal(bsf_rx_kind_classify(258, -1, true), BSF_RX_RAR);
    assert_int_equal(bsf_rx_kind_classify(274, -1, false), BSF_RX_ASR);
    assert_int_equal(bsf_rx_kind_classify(999, -1, false), BSF_RX_OTHER);
    assert_string_equal(bsf_rx_kind_name(BSF_RX_AAR_U), "AAR-U");

    snprintf(s.retry, sizeof s.retry, "aar\nasr");
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_AAR_I));
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_AAR_U));
    assert_true(bsf_rx_kind_retry_enabled(&s, BSF_RX_ASR));
    assert_false(bsf_rx_kind_retry_enabled(&s, BSF_RX_STR));
    assert_false(bsf_rx_kind_retry_enabled(&s, BSF_RX_OTHER));
}

static void ue_address(void **state)
{
    (void)state;
    bsf_discovery_query_t q;
    int bad6;
    uint8_t v4[4] = {10, 45, 0, 7};
    bsf_rx_ue_avps_t a = {.ipv4 = v4, .ipv4_len = 4, .ip_domain = "dom1", .dnn = "ims"};
    assert_int_equal(bsf_rx_ue_query_build(&a, &q, &bad6), BSF_RX_UE_OK);
    assert_int_equal(q.kind, BSF_UE_ADDR_IPV4);
    assert_memory_equal(q.ipv4.b, v4, 4);
    assert_string_equal(q.ip_domain, "dom1");
    assert_string_equal(q.dnn, "ims");
    a.ipv4_len = 3;
    assert_int_equal(bsf_rx_ue_query_build(&a, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    assert_int_equal(bad6, 0);
    /* RFC 3162 prefix: reserved, length, prefix octets (full or compact) */
    uint8_t v6[18] = {0, 64, 0x20, 0x01, 0x0d, 0xb8, 0, 1};
    bsf_rx_ue_avps_t b = {.ipv6 = v6, .ipv6_len = 18, .dnn = ""};
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_OK);
    assert_int_equal(q.kind, BSF_UE_ADDR_IPV6);
    assert_int_equal(q.ipv6.len, 64);
    assert_int_equal(q.ipv6.b[1], 0x01);
    assert_null(q.dnn);
    b.ipv6_len = 10; /* compact: 8 prefix octets */
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_OK);
    b.ipv6_len = 9; /* too short for /64 */
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    assert_int_equal(bad6, 1);
    v6[1] = 129;
    b.ipv6_len = 18;
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_VALUE);
    b.ipv6_len = 1;
    assert_int_equal(bsf_rx_ue_query_build(&b, &q, &bad6), BSF_RX_UE_BAD_LENGTH);
    bsf_rx_ue_avps_t none = {0};
    assert_int_equal(bsf_rx_ue_query_build(&none, &q, &bad6), BSF_RX_UE_MISSING);
}

static void peer_and_route_items(void **state)
{
    (void)state;
    char err[256];
    bsf_rx_peer_cfg_t p;
    assert_int_equal(bsf_rx_peer_parse("pcf1.example.com=127.0.0.1:3870", &p, err, sizeof err), 0);
    assert_string_equal(p.id, "pcf1.example.com");
    assert_string_equal(p.host, "127.0.0.1");
    assert_int_equal(p.port, 3870);
    assert_false(p.tls);
    assert_string_equal(p.tls_version, "");
    assert_int_equal(bsf_rx_peer_parse("pcf2=[::1]:3868", &p, err, sizeof err), 0);
    assert_string_equal(p.host, "::1");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls", &p, err, sizeof err), 0);
    assert_true(p.tls);
    assert_string_equal(p.tls_version, "");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls=1.2", &p, err, sizeof err), 0);
    assert_true(p.tls);
    assert_string_equal(p.tls_version, "1.2");
    assert_int_equal(bsf_rx_peer_parse("pcf3=127.0.0.1:5868 tls=1.3", &p, err, sizeof err), 0);
    assert_string_equal(p.tls_version, "1.3");
    const char *bad[] = {"pcf1", "=1.2.3.4:1", "pcf1=1.2.3.4", "pcf1=host.name:1", "pcf1=1.2.3.4:0",
                         "pcf1=1.2.3.4:70000", "bad id=1.2.3.4:1", "pcf1=1.2.3.4:1 tls=1.1",
                         "pcf1=1.2.3.4:1 tls=", "pcf1=1.2.3.4:1 tls=1.3x", "pcf1=1.2.3.4:1 TLS"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_peer_parse(bad[i], &p, err, sizeof err), -1);

    bsf_rx_route_t r;
    assert_int_equal(bsf_rx_route_parse("realm=example.com peer=pcf1 priority=2", &r, err, sizeof err), 0);
    assert_string_equal(r.host, "*");
    assert_int_equal(r.priority, 2);
    const char *rbad[] = {"peer=pcf1", "realm=x", "realm=x peer=*", "realm=x peer=p priority=-1",
                          "realm=x peer=p color=red", "realm=x realm=y peer=p", "realm=x peer"};
    for (size_t i = 0; i < sizeof rbad / sizeof rbad[0]; i++)
        assert_int_equal(bsf_rx_route_parse(rbad[i], &r, err, sizeof err), -1);

    bsf_rx_routes_t t;
    assert_int_equal(bsf_rx_routes_load("realm=example.com peer=pcf3 priority=3\n"
                                        "realm=example.com host=pcf1.example.com peer=pcf1 priority=1\n"
                                        "realm=example.com peer=pcf2 priority=1\n"
                                        "realm=* peer=dra1 priority=9\n"
                                        "realm=other.com peer=pcf9 priority=0",
                                        &t, err, sizeof err),
                     0);
    const char *out[8];
    size_t n = bsf_rx_routes_select(&t, "EXAMPLE.com", "pcf1.example.com", out, 8);
    assert_int_equal(n, 4);
    assert_string_equal(out[0], "pcf1"); /* same priority: the exact host first */
    assert_string_equal(out[1], "pcf2");
    assert_string_equal(out[2], "pcf3");
    assert_string_equal(out[3], "dra1");
    n = bsf_rx_routes_select(&t, "example.com", NULL, out, 8); /* no host: wildcard routes */
    assert_int_equal(n, 3);
    assert_string_equal(out[0], "pcf2");
    n = bsf_rx_routes_select(&t, "nowhere.org", "h", out, 8);
    assert_int_equal(n, 1);
    assert_string_equal(out[0], "dra1");
    bsf_rx_routes_free(&t);
    assert_int_equal(bsf_rx_routes_load("realm=a peer=p\nnonsense", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "item 2"));
}

static bsf_rx_repave_trigger_t trigger(const char *id, uint64_t request_ms)
{
    bsf_rx_repave_trigger_t t = {.request_ms = request_ms};
    snprintf(t.id, sizeof t.id, "%s", id);
    return t;
}

/* Seed §3.45 acceptance 3, 4, 5: disabled triggers are ignored, triggers run one at a time in
 * order, a redelivered id is ignored. */
static void repaving_queue(void **state)
{
    (void)state;
    bsf_rx_repave_queue_t q = {0};
    bsf_rx_repave_trigger_t t1 = trigger("t1", 1000), t2 = trigger("t2", 1010), out;
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t1, false), BSF_RX_REPAVE_DISABLED);
    assert_int_equal(bsf_rx_repave_queue_next(&q, 0, &out), BSF_RX_REPAVE_NONE);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t1, true), BSF_RX_REPAVE_QUEUED);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t1, true), BSF_RX_REPAVE_DUPLICATE);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t2, true), BSF_RX_REPAVE_QUEUED);

    assert_int_equal(bsf_rx_repave_queue_next(&q, 0, &out), BSF_RX_REPAVE_RUN);
    assert_string_equal(out.id, "t1");
    /* never two at once: t2 waits while t1 runs, and t1 stays a duplicate */
    assert_int_equal(bsf_rx_repave_queue_next(&q, 0, &out), BSF_RX_REPAVE_NONE);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t1, true), BSF_RX_REPAVE_DUPLICATE);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t2, false), BSF_RX_REPAVE_DUPLICATE);
    bsf_rx_repave_queue_done(&q, 1500);
    assert_int_equal(bsf_rx_repave_queue_next(&q, 0, &out), BSF_RX_REPAVE_RUN);
    assert_string_equal(out.id, "t2");
    assert_int_equal(out.request_ms, 1010);
    bsf_rx_repave_queue_done(&q, 1600);
    /* the last processed id is remembered after its run */
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &t2, true), BSF_RX_REPAVE_DUPLICATE);
    assert_int_equal(bsf_rx_repave_queue_next(&q, 0, &out), BSF_RX_REPAVE_NONE);

    /* a full queue refuses, nothing queued is lost */
    bsf_rx_repave_queue_t full = {0};
    char id[16];
    for (int i = 0; i < BSF_RX_REPAVE_QUEUE_MAX; i++) {
        snprintf(id, sizeof id, "q%d", i);
        bsf_rx_repave_trigger_t t = trigger(id, 1);
        assert_int_equal(bsf_rx_repave_queue_offer(&full, &t, true), BSF_RX_REPAVE_QUEUED);
    }
    bsf_rx_repave_trigger_t extra = trigger("extra", 1);
    assert_int_equal(bsf_rx_repave_queue_offer(&full, &extra, true), BSF_RX_REPAVE_QUEUE_FULL);
    for (int i = 0; i < BSF_RX_REPAVE_QUEUE_MAX; i++) {
        snprintf(id, sizeof id, "q%d", i);
        assert_int_equal(bsf_rx_repave_queue_next(&full, 0, &out), BSF_RX_REPAVE_RUN);
        assert_string_equal(out.id, id);
        bsf_rx_repave_queue_done(&full, 2);
    }
}

/* REINVOCATION_DELAY_MIN counts from the previous run's end to the next trigger's request. */
static void repaving_reinvocation_delay(void **state)
{
    (void)state;
    bsf_rx_repave_queue_t q = {0};
    bsf_rx_repave_trigger_t a = trigger("a", 1000), b = trigger("b", 1200),
                            c = trigger("c", 62000), out;
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &a, true), BSF_RX_REPAVE_QUEUED);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &b, true), BSF_RX_REPAVE_QUEUED);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &c, true), BSF_RX_REPAVE_QUEUED);
    assert_int_equal(bsf_rx_repave_queue_next(&q, 60000, &out), BSF_RX_REPAVE_RUN);
    bsf_rx_repave_queue_done(&q, 2000);
    assert_int_equal(bsf_rx_repave_queue_next(&q, 60000, &out), BSF_RX_REPAVE_SKIPPED);
    assert_string_equal(out.id, "b");
    assert_int_equal(bsf_rx_repave_queue_next(&q, 60000, &out), BSF_RX_REPAVE_RUN);
    assert_string_equal(out.id, "c");
    bsf_rx_repave_queue_done(&q, 63000);
    /* a skipped id is processed: its redelivery is a duplicate too */
    bsf_rx_repave_trigger_t again = trigger("c", 200000);
    assert_int_equal(bsf_rx_repave_queue_offer(&q, &again, true), BSF_RX_REPAVE_DUPLICATE);
}

/* Acceptance 2: connections established after the request are kept; outbound ones always. */
static void repaving_eligibility_and_ids(void **state)
{
    (void)state;
    assert_true(bsf_rx_repave_eligible(true, 999, 1000));
    assert_false(bsf_rx_repave_eligible(true, 1000, 1000));
    assert_false(bsf_rx_repave_eligible(true, 1001, 1000));
    assert_false(bsf_rx_repave_eligible(false, 1, 1000));
    char why[128];
    assert_int_equal(bsf_rx_repave_check_id("trigger-UUID-1", why, sizeof why), 0);
    assert_int_equal(bsf_rx_repave_check_id("", why, sizeof why), -1);
    assert_int_equal(bsf_rx_repave_check_id("a b", why, sizeof why), -1);
    assert_int_equal(bsf_rx_repave_check_id("0123456789012345678901234567890123456789012345678901"
                                            "234567890123",
                                            why, sizeof why),
                     -1);
    assert_string_equal(bsf_rx_disconnect_cause_name(BSF_RX_DC_BUSY), "BUSY");
    assert_string_equal(bsf_rx_disconnect_cause_name(BSF_RX_DC_DO_NOT_WANT_TO_TALK_TO_YOU),
                        "DO_NOT_WANT_TO_TALK_TO_YOU");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_lists),
        cmocka_unit_test(repaving_queue),
        cmocka_unit_test(repaving_reinvocation_delay),
        cmocka_unit_test(repaving_eligibility_and_ids),
        cmocka_unit_test(congestion_states),
        cmocka_unit_test(congestion_shedding),
        cmocka_unit_test(congestion_settings),
        cmocka_unit_test(congestion_priority_rules),
        cmocka_unit_test(code_patterns),   cmocka_unit_test(originator),
        cmocka_unit_test(retry_wanted),    cmocka_unit_test(retry_next_peer),
        cmocka_unit_test(realm_rules),     cmocka_unit_test(timeouts_and_kinds),
        cmocka_unit_test(ue_address),      cmocka_unit_test(peer_and_route_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
