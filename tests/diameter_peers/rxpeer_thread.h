/* rxpeer_thread.h - a background thread that sleeps on a monotonic condition variable until
 * it is told to stop (the delayed answers' sender, the request reaper). The caller owns the
 * mutex, the condition variable, the thread and the stop flag. */
#ifndef RXPEER_THREAD_H
#define RXPEER_THREAD_H

#include <pthread.h>

#include "rxpeer_time.h"

/* Initialises *mu and *cv (timed on CLOCK_MONOTONIC, see rxpeer_mono_in_ms), then starts
 * fn(arg) in *thr. Returns 0, or the pthread error of the step that failed (the steps before
 * it stay done). */
static inline int rxpeer_thread_start(pthread_mutex_t *mu, pthread_cond_t *cv, pthread_t *thr,
    void *(*fn)(void *), void *arg)
{
	int ret;

	if ((ret = pthread_mutex_init(mu, NULL)) != 0)
		return ret;
	if ((ret = rxpeer_mono_cond_init(cv)) != 0)
		return ret;
	return pthread_create(thr, NULL, fn, arg);
}

/* Sets *stop under *mu, wakes the thread on *cv and joins it; the thread leaves its loop once
 * it sees *stop. */
static inline void rxpeer_thread_stop(pthread_mutex_t *mu, pthread_cond_t *cv, pthread_t thr,
    int *stop)
{
	pthread_mutex_lock(mu);
	*stop = 1;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
	pthread_join(thr, NULL);
}

#endif
