/* Monotonic deadlines and timed waits (common/deadline.h). */
#include "common/deadline.h"

#include <errno.h>

#define NS_PER_S 1000000000ull

struct timespec bsf_timespec_after_ns(clockid_t clock, uint64_t ns)
{
    struct timespec t;
    clock_gettime(clock, &t);
    uint64_t nsec = (uint64_t)t.tv_nsec + ns % NS_PER_S;
    t.tv_sec += (time_t)(ns / NS_PER_S + nsec / NS_PER_S);
    t.tv_nsec = (long)(nsec % NS_PER_S);
    return t;
}

struct timespec bsf_deadline_after_ns(uint64_t ns)
{
    return bsf_timespec_after_ns(CLOCK_MONOTONIC, ns);
}

struct timespec bsf_deadline_after_ms(uint64_t ms)
{
    return bsf_timespec_after_ns(CLOCK_MONOTONIC, ms * 1000000ull);
}

int bsf_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc)
        return -rc;
    rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (!rc)
        rc = pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
    return -rc;
}

int bsf_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, const struct timespec *deadline)
{
    return pthread_cond_timedwait(cv, mu, deadline) == ETIMEDOUT ? -ETIMEDOUT : 0;
}

int bsf_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ms)
{
    struct timespec until = bsf_deadline_after_ms(ms);
    return bsf_cond_wait_until(cv, mu, &until);
}
