/* The bound on a stop; see grace_timer.h. */
#include "bsfd/grace_timer.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/diag.h"

static void *grace_main(void *arg)
{
    uint64_t ms = (uint64_t)(uintptr_t)arg;
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    BSF_ERROR("bsfd", "shutdown.grace_period (%llu ms) elapsed: exiting now",
              (unsigned long long)ms);
    _exit(1); /* no atexit handlers: the other threads are still running */
}

static _Atomic uint64_t period_ms = 30000;

void bsf_grace_timer_set_period(uint64_t ms)
{
    atomic_store(&period_ms, ms);
}

uint64_t bsf_grace_timer_period(void)
{
    return atomic_load(&period_ms);
}

int bsf_grace_timer_arm(void)
{
    uint64_t ms = atomic_load(&period_ms);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, grace_main, (void *)(uintptr_t)ms);
    pthread_attr_destroy(&a);
    if (rc) {
        BSF_ERROR("bsfd", "cannot arm shutdown.grace_period: the stop is not bounded");
        return -1;
    }
    return 0;
}
