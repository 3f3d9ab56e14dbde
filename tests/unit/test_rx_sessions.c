/* gateways/diameter/rx_sessions: the Rx session table (bound, idle expiry, ending sessions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_sessions.h"

#define SEC 1000000000ull

static bsf_rx_session_t sess(const char *af, const char *pcf)
{
    bsf_rx_session_t s;
    memset(&s, 0, sizeof s);
    snprintf(s.af_peer, sizeof s.af_peer, "%s", af);
    snprintf(s.pcf_peer, sizeof s.pcf_peer, "%s", pcf);
    return s;
}

static void sessions_bound_and_follow(void **state)
{
    (void)state;
    bsf_rx_sessions_t t;
    assert_int_equal(bsf_rx_sessions_init(&t, 3, 10 * SEC, 2 * SEC), 0);
    bsf_rx_session_t a = sess("af1", "pcf1"), got;
    assert_int_equal(bsf_rx_sessions_put(&t, "s1", 2, &a, 0), BSF_RX_SESSION_ADDED);
    assert_int_equal(bsf_rx_sessions_put(&t, "s2", 2, &a, 0), BSF_RX_SESSION_ADDED);
    assert_int_equal(bsf_rx_sessions_put(&t, "s3", 2, &a, 0), BSF_RX_SESSION_ADDED);
    assert_int_equal(bsf_rx_sessions_put(&t, "s4", 2, &a, 0), BSF_RX_SESSION_FULL);
    assert_int_equal(bsf_rx_sessions_put(&t, "s1", 2, &a, 0), BSF_RX_SESSION_REPLACED);
    assert_int_equal(bsf_rx_sessions_count(&t), 3);
    assert_true(bsf_rx_sessions_get(&t, "s2", 2, 1, &got));
    assert_string_equal(got.pcf_peer, "pcf1");
    bsf_rx_sessions_set_pcf(&t, "s2", 2, "pcf2", NULL);
    assert_true(bsf_rx_sessions_get(&t, "s2", 2, 1, &got));
    assert_string_equal(got.pcf_peer, "pcf2");
    assert_false(bsf_rx_sessions_get(&t, "s", 1, 1, &got)); /* prefix is not a match */
    assert_true(bsf_rx_sessions_remove(&t, "s3", 2));
    assert_false(bsf_rx_sessions_remove(&t, "s3", 2));
    assert_int_equal(bsf_rx_sessions_put(&t, "s4", 2, &a, 1), BSF_RX_SESSION_ADDED);
    bsf_rx_sessions_destroy(&t);
}

static void sessions_expire(void **state)
{
    (void)state;
    bsf_rx_sessions_t t;
    assert_int_equal(bsf_rx_sessions_init(&t, 100, 10 * SEC, 2 * SEC), 0);
    bsf_rx_session_t a = sess("af1", "pcf1"), got;
    char sid[16];
    for (int i = 0; i < 20; i++) {
        snprintf(sid, sizeof sid, "sid-%d", i);
        assert_int_equal(bsf_rx_sessions_put(&t, sid, strlen(sid), &a, (uint64_t)i * SEC),
                         BSF_RX_SESSION_ADDED);
    }
    /* use at t=15 keeps sid-0 alive until 25 */
    assert_true(bsf_rx_sessions_get(&t, "sid-0", 5, 15 * SEC, &got));
    /* at t=14.5: the ones last used before 4.5 are gone (1..4), not sid-0 */
    assert_int_equal(bsf_rx_sessions_expire(&t, 14 * SEC + SEC / 2), 4);
    assert_true(bsf_rx_sessions_get(&t, "sid-0", 5, 15 * SEC, &got));
    assert_false(bsf_rx_sessions_get(&t, "sid-3", 5, 15 * SEC, &got));
    /* an ending session (ASA) goes after the short delay, even when used */
    bsf_rx_sessions_end(&t, "sid-19", 6, 16 * SEC);
    assert_true(bsf_rx_sessions_get(&t, "sid-19", 6, 17 * SEC, &got));
    assert_int_equal(bsf_rx_sessions_expire(&t, 18 * SEC + 1), 5); /* sid-5..8 and sid-19 */
    assert_false(bsf_rx_sessions_get(&t, "sid-19", 6, 18 * SEC, &got));
    assert_int_equal(bsf_rx_sessions_count(&t), 11);
    assert_int_equal(bsf_rx_sessions_expire(&t, 100 * SEC), 11);
    assert_int_equal(bsf_rx_sessions_count(&t), 0);
    bsf_rx_sessions_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sessions_bound_and_follow),
        cmocka_unit_test(sessions_expire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
