/* The process-wide operational state; see operational_state.h. */
#include "common/operational_state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MAX_LISTENERS 8

static _Atomic int state = BSF_OPSTATE_NORMAL;
static atomic_bool terminating = false;
static _Atomic uint64_t refusals[2];
static _Atomic unsigned http_status = 503;
static _Atomic uint32_t diameter_result = 3004; /* DIAMETER_TOO_BUSY */

/* The cause text and the listeners change rarely: a mutex is enough. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char cause_text[64] = "NF_SERVICE_FAILOVER";
typedef struct {
    bsf_opstate_listener_fn fn;
    void *ctx;
} listener_t;
static listener_t listeners[MAX_LISTENERS];
static unsigned n_listeners;

static const char *const names[] = {"NORMAL", "PARTIAL_SHUTDOWN", "COMPLETE_SHUTDOWN"};

bsf_opstate_t bsf_opstate_get(void)
{
    return (bsf_opstate_t)atomic_load(&state);
}

bsf_opstate_t bsf_opstate_set(bsf_opstate_t st)
{
    bsf_opstate_t from = (bsf_opstate_t)atomic_exchange(&state, (int)st);
    if (from == st)
        return from;
    pthread_mutex_lock(&mu);
    unsigned n = n_listeners;
    listener_t copy[MAX_LISTENERS];
    memcpy(copy, listeners, sizeof copy);
    pthread_mutex_unlock(&mu);
    for (unsigned i = 0; i < n; i++)
        copy[i].fn(copy[i].ctx, from, st);
    return from;
}

void bsf_opstate_begin_termination(void)
{
    atomic_store(&terminating, true);
}

bool bsf_opstate_terminating(void)
{
    return atomic_load(&terminating);
}

bsf_opverdict_t bsf_opstate_check(bsf_opreq_t req)
{
    if (atomic_load_explicit(&terminating, memory_order_relaxed))
        return BSF_OPVERDICT_STOPPING;
    switch ((bsf_opstate_t)atomic_load_explicit(&state, memory_order_relaxed)) {
    case BSF_OPSTATE_NORMAL:
        return BSF_OPVERDICT_ADMIT;
    case BSF_OPSTATE_PARTIAL_SHUTDOWN:
        return req == BSF_OPREQ_NEW_SESSION ? BSF_OPVERDICT_SHUTDOWN : BSF_OPVERDICT_ADMIT;
    case BSF_OPSTATE_COMPLETE_SHUTDOWN:
    default:
        return BSF_OPVERDICT_SHUTDOWN;
    }
}

bool bsf_opstate_audits_paused(void)
{
    return bsf_opstate_terminating() || bsf_opstate_get() == BSF_OPSTATE_COMPLETE_SHUTDOWN;
}

void bsf_opstate_count_refusal(bsf_opif_t iface)
{
    atomic_fetch_add_explicit(&refusals[iface & 1], 1, memory_order_relaxed);
}

uint64_t bsf_opstate_refusals(bsf_opif_t iface)
{
    return atomic_load_explicit(&refusals[iface & 1], memory_order_relaxed);
}

const char *bsf_opstate_name(bsf_opstate_t st)
{
    return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "UNKNOWN";
}

int bsf_opstate_parse(const char *text, bsf_opstate_t *out)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (bsf_opstate_t)i;
            return 0;
        }
    return -1;
}

const char *bsf_opstate_nf_status(void)
{
    return bsf_opstate_get() == BSF_OPSTATE_NORMAL ? "REGISTERED" : "SUSPENDED";
}

void bsf_opstate_set_codes(unsigned status, const char *cause, uint32_t result)
{
    atomic_store(&http_status, status);
    atomic_store(&diameter_result, result);
    pthread_mutex_lock(&mu);
    snprintf(cause_text, sizeof cause_text, "%s", cause);
    pthread_mutex_unlock(&mu);
}

unsigned bsf_opstate_http_status(void)
{
    return atomic_load(&http_status);
}

void bsf_opstate_cause(char *out, unsigned cap)
{
    pthread_mutex_lock(&mu);
    snprintf(out, cap, "%s", cause_text);
    pthread_mutex_unlock(&mu);
}

uint32_t bsf_opstate_diameter_result(void)
{
    return atomic_load(&diameter_result);
}

int bsf_opstate_add_listener(bsf_opstate_listener_fn fn, void *ctx)
{
    pthread_mutex_lock(&mu);
    int rc = -1;
    if (n_listeners < MAX_LISTENERS) {
        listeners[n_listeners].fn = fn;
        listeners[n_listeners].ctx = ctx;
        n_listeners++;
        rc = 0;
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

void bsf_opstate_remove_listener(bsf_opstate_listener_fn fn, void *ctx)
{
    pthread_mutex_lock(&mu);
    for (unsigned i = 0; i < n_listeners; i++)
        if (listeners[i].fn == fn && listeners[i].ctx == ctx) {
            listeners[i] = listeners[--n_listeners];
            break;
        }
    pthread_mutex_unlock(&mu);
}
