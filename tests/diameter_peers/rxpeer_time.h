/* rxpeer_time.h - clock helpers (monotonic for deadlines/latency, realtime for records). */
#ifndef RXPEER_TIME_H
#define RXPEER_TIME_H

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

/* Absolute CLOCK_REALTIME time `ms` from now (freeDiameter timeouts use the realtime clock). */
static inline struct timespec rxpeer_realtime_in_ms(uint32_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Absolute CLOCK_MONOTONIC time `ms` from now, for pthread_cond_timedwait on a monotonic condvar. */
static inline struct timespec rxpeer_mono_in_ms(uint32_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

#endif /* RXPEER_TIME_H */
