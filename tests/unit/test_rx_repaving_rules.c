/* gateways/diameter/rx_repaving_rules: the repaving queue, reinvocation delay, eligibility
 * and ids (seed 3.45). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_repaving_rules.h"

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
        cmocka_unit_test(repaving_queue),
        cmocka_unit_test(repaving_reinvocation_delay),
        cmocka_unit_test(repaving_eligibility_and_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
