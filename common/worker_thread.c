/* One way to start and stop a module's background thread (see worker_thread.h). */
#include "common/worker_thread.h"

int bsf_worker_start(bsf_worker_t *w, void *(*main)(void *), void *arg, const char *name)
{
    atomic_store(&w->stopping, false); /* a stopped worker may be started again */
    int rc = pthread_create(&w->thread, NULL, main, arg);
    if (rc)
        return -rc;
    if (name)
        pthread_setname_np(w->thread, name); /* per-thread CPU in top and perf */
    w->started = true;
    return 0;
}

void bsf_worker_stop(bsf_worker_t *w, pthread_mutex_t *mu, pthread_cond_t *cv)
{
    if (!w || !w->started)
        return;
    pthread_mutex_lock(mu);
    atomic_store(&w->stopping, true);
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
    pthread_join(w->thread, NULL);
    w->started = false;
}

bool bsf_worker_stopping(const bsf_worker_t *w)
{
    return atomic_load(&w->stopping);
}
