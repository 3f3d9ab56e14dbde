#include "tests/unit/test_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/json_codec.h"

msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone)
{
    msgpack_object obj;
    bsf_problem_t p;
    int rc = bsf_json_to_msgpack(json, strlen(json), buf, zone, &obj, &p);
    if (rc)
        fail_msg("bad test JSON: %s (%s)", json, p.detail);
    return obj;
}

bsf_pcf_binding_t *tu_binding(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone)
{
    bsf_pcf_binding_t *b = msgpack_zone_malloc(zone, sizeof *b);
    bsf_problem_t p;
    msgpack_object o = tu_json(json, buf, zone);
    if (!b || bsf_pcf_binding_decode(&o, zone, b, &p) || bsf_pcf_binding_check_rules(b, &p))
        fail_msg("bad test binding: %s (%s)", json, b ? p.detail : "out of memory");
    return b;
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
} waiter_t;

static void on_done(bsf_command_t *cmd)
{
    waiter_t *w = cmd->owner;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void tu_engine_run(bsf_engine_t *engine, bsf_command_t *cmd)
{
    waiter_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    cmd->owner = &w;
    cmd->done = on_done;
    assert_int_equal(bsf_engine_submit(engine, cmd), 0);
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
}
