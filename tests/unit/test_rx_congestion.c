/* gateways/diameter/rx_congestion: congestion states, load shedding, its settings and the
 * message priority profile (seed 3.26). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_congestion.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(congestion_states),
        cmocka_unit_test(congestion_shedding),
        cmocka_unit_test(congestion_settings),
        cmocka_unit_test(congestion_priority_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
