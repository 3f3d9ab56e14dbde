/* Monotonic deadlines and timed waits (common/deadline.h). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/deadline.h"

static uint64_t ts_ns(const struct timespec *t)
{
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static void deadlines_are_normalized(void **state)
{
    (void)state;
    const uint64_t steps_ns[] = {0, 1, 999999999u, 1000000000u, 1500000000u, 3999999999ull,
                                 86400000000000ull};
    for (size_t i = 0; i < sizeof steps_ns / sizeof steps_ns[0]; i++) {
        struct timespec before;
        clock_gettime(CLOCK_MONOTONIC, &before);
        struct timespec d = bsf_deadline_after_ns(steps_ns[i]);
        struct timespec after;
        clock_gettime(CLOCK_MONOTONIC, &after);
        assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
        assert_true(ts_ns(&d) >= ts_ns(&before) + steps_ns[i]);
        assert_true(ts_ns(&d) <= ts_ns(&after) + steps_ns[i]);
    }
    struct timespec m = bsf_deadline_after_ms(2500);
    assert_true(m.tv_nsec >= 0 && m.tv_nsec < 1000000000L);
    struct timespec r = bsf_timespec_after_ns(CLOCK_REALTIME, 1999999999u);
    assert_true(r.tv_nsec >= 0 && r.tv_nsec < 1000000000L);
}

static void timed_wait_runs_on_the_monotonic_clock(void **state)
{
    (void)state;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv;
    assert_int_equal(bsf_cond_init_monotonic(&cv), 0);
    pthread_mutex_lock(&mu);
    uint64_t t0 = bsf_clock_mono_ns();
    int rc;
    do /* a spurious wake-up returns 0: wait again for the same deadline */
        rc = bsf_cond_wait_ms(&cv, &mu, 30);
    while (rc == 0 && bsf_clock_mono_ns() - t0 < 30000000u);
    uint64_t waited = bsf_clock_mono_ns() - t0;
    pthread_mutex_unlock(&mu);
    assert_int_equal(rc, -ETIMEDOUT);
    /* A condition on CLOCK_REALTIME would take this boot-time deadline as long past. */
    assert_true(waited >= 30000000u);
    assert_true(waited < 2000000000u);
    /* A deadline already past returns at once. */
    pthread_mutex_lock(&mu);
    struct timespec past = bsf_deadline_after_ms(0);
    past.tv_sec -= 1;
    assert_int_equal(bsf_cond_wait_until(&cv, &mu, &past), -ETIMEDOUT);
    pthread_mutex_unlock(&mu);
    pthread_cond_destroy(&cv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deadlines_are_normalized),
        cmocka_unit_test(timed_wait_runs_on_the_monotonic_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
