/* A module's background thread: start, the stop flag, waking and joining
 * (common/worker_thread.h). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/deadline.h"
#include "common/worker_thread.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bsf_worker_t worker;
    bool running, exited;
} owner_t;

/* Waits without a timeout: only bsf_worker_stop's wake-up can end it. */
static void *worker_main(void *arg)
{
    owner_t *o = arg;
    pthread_mutex_lock(&o->mu);
    o->running = true;
    pthread_cond_broadcast(&o->cv);
    while (!bsf_worker_stopping(&o->worker))
        pthread_cond_wait(&o->cv, &o->mu);
    o->exited = true;
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

static void owner_init(owner_t *o)
{
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->mu, NULL);
    assert_int_equal(bsf_cond_init_monotonic(&o->cv), 0);
}

static void owner_wait_running(owner_t *o)
{
    pthread_mutex_lock(&o->mu);
    while (!o->running)
        pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
}

/* Starts the worker (named `name`) and waits until it runs. */
static void owner_start(owner_t *o, const char *name)
{
    assert_int_equal(bsf_worker_start(&o->worker, worker_main, o, name), 0);
    owner_wait_running(o);
}

/* Stops the worker: joined, its last write is visible. */
static void owner_stop(owner_t *o)
{
    bsf_worker_stop(&o->worker, &o->mu, &o->cv);
    assert_true(o->exited);
}

static void owner_destroy(owner_t *o)
{
    pthread_cond_destroy(&o->cv);
    pthread_mutex_destroy(&o->mu);
}

static void stop_wakes_and_joins_the_worker(void **state)
{
    (void)state;
    owner_t o;
    owner_init(&o);
    owner_start(&o, "bsf-test");
    assert_true(o.worker.started);
    assert_false(bsf_worker_stopping(&o.worker));
    char name[16];
    assert_int_equal(pthread_getname_np(o.worker.thread, name, sizeof name), 0);
    assert_string_equal(name, "bsf-test"); /* named before bsf_worker_start returned */

    owner_stop(&o);
    assert_false(o.worker.started);
    assert_true(bsf_worker_stopping(&o.worker));
    bsf_worker_stop(&o.worker, &o.mu, &o.cv); /* a second stop does nothing */
    owner_destroy(&o);
}

static void unnamed_worker_keeps_the_process_name(void **state)
{
    (void)state;
    owner_t o;
    owner_init(&o);
    char parent[16];
    pthread_getname_np(pthread_self(), parent, sizeof parent);
    owner_start(&o, NULL);
    char name[16];
    assert_int_equal(pthread_getname_np(o.worker.thread, name, sizeof name), 0);
    assert_string_equal(name, parent); /* a new thread inherits its creator's name */
    owner_stop(&o);
    owner_destroy(&o);
}

static void a_stopped_worker_starts_again(void **state)
{
    (void)state;
    owner_t o;
    owner_init(&o);
    owner_start(&o, NULL);
    owner_stop(&o);
    o.running = o.exited = false;
    owner_start(&o, NULL); /* it waits again instead of exiting at once: */
    assert_false(bsf_worker_stopping(&o.worker));
    pthread_mutex_lock(&o.mu);
    assert_false(o.exited);
    pthread_mutex_unlock(&o.mu);
    owner_stop(&o);
    owner_destroy(&o);
}

static void stop_without_a_thread_does_nothing(void **state)
{
    (void)state;
    owner_t o;
    owner_init(&o);
    bsf_worker_stop(NULL, &o.mu, &o.cv);
    bsf_worker_stop(&o.worker, &o.mu, &o.cv); /* never started */
    assert_false(o.worker.started);
    assert_false(bsf_worker_stopping(&o.worker));
    owner_destroy(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stop_wakes_and_joins_the_worker),
        cmocka_unit_test(unnamed_worker_keeps_the_process_name),
        cmocka_unit_test(a_stopped_worker_starts_again),
        cmocka_unit_test(stop_without_a_thread_does_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
