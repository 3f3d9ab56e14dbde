/* Deadlines and timed waits, on the monotonic clock: a wait must not stretch or shrink when
 * the wall clock is set. Every condition variable that is waited on with a timeout is
 * created with bsf_cond_init_monotonic, and its deadlines come from bsf_deadline_after_*.
 *
 * All functions may be called from any thread. */
#ifndef BSF_COMMON_DEADLINE_H
#define BSF_COMMON_DEADLINE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* `clock`'s now + `ns`, normalized (tv_nsec < 1e9). For a library that wants another clock
 * (freeDiameter's fd_msg_send_timeout takes CLOCK_REALTIME). */
struct timespec bsf_timespec_after_ns(clockid_t clock, uint64_t ns);

/* CLOCK_MONOTONIC's now + `ms` (or `ns`): a deadline for bsf_cond_wait_until. */
struct timespec bsf_deadline_after_ms(uint64_t ms);
struct timespec bsf_deadline_after_ns(uint64_t ns);

/* pthread_cond_init with CLOCK_MONOTONIC as the clock of timed waits. Returns 0 or a
 * negated errno (-ENOMEM, -EAGAIN); `cv` is not initialised then. */
int bsf_cond_init_monotonic(pthread_cond_t *cv);

/* pthread_cond_timedwait on a condition made by bsf_cond_init_monotonic, `mu` held. Returns
 * 0 when woken (maybe spuriously: the caller re-checks its predicate) or -ETIMEDOUT. */
int bsf_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, const struct timespec *deadline);
/* The same with a deadline `ms` from now. */
int bsf_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ms);

#endif
