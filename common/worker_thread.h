/* A module's own background thread: started once, told to stop through a flag its owner's
 * lock guards, woken on the owner's condition variable and joined. The lock and the condition
 * stay the owner's (they guard the owner's state too); this keeps only the thread, whether it
 * runs, and the stop flag, so that every module stops its thread the same way.
 *
 * A bsf_worker_t starts zeroed (calloc or `= {0}`) and is owned by the module that embeds it.
 * bsf_worker_start and bsf_worker_stop are called by the owner's controlling thread (never by
 * the worker itself); bsf_worker_stopping from any thread. */
#ifndef BSF_COMMON_WORKER_THREAD_H
#define BSF_COMMON_WORKER_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct {
    pthread_t thread;
    bool started;
    atomic_bool stopping; /* set under the owner's lock; may be read without it */
} bsf_worker_t;

/* Runs `main(arg)` in a new thread, named `name` (at most 15 characters; NULL: unnamed), with
 * the stop flag cleared (a worker stopped by bsf_worker_stop may be started again). Returns 0,
 * or a negated errno (-EAGAIN, ...) and no thread was started. Not while it runs. */
int bsf_worker_start(bsf_worker_t *w, void *(*main)(void *), void *arg, const char *name);

/* Sets the stop flag under `mu`, wakes every thread waiting on `cv` (the worker re-checks the
 * flag; others waiting on the same condition re-check theirs) and joins the worker. Does
 * nothing when `w` is NULL or its thread is not running. Must not hold `mu`. */
void bsf_worker_stop(bsf_worker_t *w, pthread_mutex_t *mu, pthread_cond_t *cv);

/* True once bsf_worker_stop has been asked to stop the thread. */
bool bsf_worker_stopping(const bsf_worker_t *w);

#endif
