/* rxpeer_time.h - clock helpers (monotonic for deadlines/latency, realtime for records). */
#ifndef RXPEER_TIME_H
#define RXPEER_TIME_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t rxpeer_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall clock in seconds, with sub-second precision, for "ts" fields. */
static inline double rxpeer_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Absolute time on `clock` `ms` from now. */
static inline struct timespec rxpeer_clock_in_ms(clockid_t clock, uint32_t ms)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Absolute CLOCK_REALTIME time `ms` from now (freeDiameter timeouts use the realtime clock). */
static inline struct timespec rxpeer_realtime_in_ms(uint32_t ms)
{
	return rxpeer_clock_in_ms(CLOCK_REALTIME, ms);
}

/* Absolute CLOCK_MONOTONIC time `ms` from now, for pthread_cond_timedwait on a monotonic condvar. */
static inline struct timespec rxpeer_mono_in_ms(uint32_t ms)
{
	return rxpeer_clock_in_ms(CLOCK_MONOTONIC, ms);
}

/* Initialises *cv to time its waits on CLOCK_MONOTONIC (see rxpeer_mono_in_ms). Returns 0 or
 * the pthread error. */
static inline int rxpeer_mono_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	int ret = pthread_condattr_init(&ca);
	if (ret != 0)
		return ret;
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (ret == 0)
		ret = pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
	return ret;
}

#endif /* RXPEER_TIME_H */
