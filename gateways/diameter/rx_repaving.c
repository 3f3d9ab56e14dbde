/* Connection repaving at run time (seed §3.45); see rx_repaving.h. */
#include "gateways/diameter/rx_repaving.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <uuid/uuid.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "common/deadline.h"
#include "common/diag.h"
#include "common/time_text.h"
#include "gateways/diameter/rx_node.h"
#include "common/error.h"
#include "common/worker_thread.h"

struct bsf_rx_repaving {
    uint64_t jitter_ms, interval_ms, delay_ms;
    char cause[32];
    bsf_rx_connections_t *connections;

    pthread_mutex_t lock; /* everything below */
    pthread_cond_t wake;
    bsf_rx_repave_queue_t queue;
    bool enabled;
    bsf_worker_t worker; /* its stop flag is set under lock */
    unsigned seed;

    _Atomic uint64_t disconnections;
    _Atomic uint64_t outcomes[4]; /* bsf_rx_repave_offer_t */
    _Atomic uint64_t completed, skipped;
};

/* Waits `ms` unless stopping; called and returns with the lock held. True when stopping. */
static bool wait_locked(bsf_rx_repaving_t *r, uint64_t ms)
{
    struct timespec until = bsf_deadline_after_ms(ms);
    while (!bsf_worker_stopping(&r->worker))
        if (bsf_cond_wait_until(&r->wake, &r->lock, &until) == -ETIMEDOUT)
            break;
    return bsf_worker_stopping(&r->worker);
}

/* Sends DPR to `id` when it is still connected on a connection established before
 * `request_ms` that got no DPR yet. Called with the lock held. */
static bool disconnect_locked(bsf_rx_repaving_t *r, const char *id, uint64_t request_ms)
{
    bsf_rx_connection_t c;
    if (!bsf_rx_connections_get(r->connections, id, &c) ||
        !bsf_rx_repave_eligible(c.inbound, c.established_ms, request_ms) ||
        !bsf_rx_connections_claim(r->connections, id, c.established_ms))
        return false; /* reconnected since the snapshot, or repaved by an earlier run */
    /* The peers' read lock keeps libfdcore's garbage collector from freeing the peer
     * between the look-up and the event. */
    if (pthread_rwlock_rdlock(&fd_g_peers_rw) != 0)
        return false;
    struct peer_hdr *p = NULL;
    int rc = fd_peer_getbyid((DiamId_t)id, strlen(id), 1, &p);
    bool sent = false;
    if (rc == 0 && p) {
        int state = fd_peer_get_state(p);
        if (state == STATE_OPEN || state == STATE_OPEN_NEW || state == STATE_REOPEN)
            sent = bsf_rx_node_disconnect(p, r->cause) == 0;
    }
    pthread_rwlock_unlock(&fd_g_peers_rw);
    return sent;
}

static void run_trigger(bsf_rx_repaving_t *r, const bsf_rx_repave_trigger_t *t)
{
    char when[32];
    bsf_time_format_rfc3339((int64_t)t->request_ms, when);
    uint64_t jitter = r->jitter_ms ? (uint64_t)rand_r(&r->seed) % (r->jitter_ms + 1) : 0;
    BSF_INFO("diameter", "repaving %s (requested %s): starting in %llu ms", t->id, when,
             (unsigned long long)jitter);
    if (jitter && wait_locked(r, jitter))
        return;
    /* The connections to repave are the ones established before the request: a snapshot of
     * their ids; each is checked again just before its DPR. */
    size_t n = 0;
    bsf_rx_connection_t *all = bsf_rx_connections_snapshot(r->connections, &n);
    uint64_t done = 0;
    for (size_t i = 0; i < n && !bsf_worker_stopping(&r->worker); i++) {
        if (!bsf_rx_repave_eligible(all[i].inbound, all[i].established_ms, t->request_ms))
            continue;
        /* the pause comes between two disconnections, never after the last */
        if (done && wait_locked(r, r->interval_ms))
            break;
        if (!disconnect_locked(r, all[i].id, t->request_ms))
            continue;
        done++;
        atomic_fetch_add(&r->disconnections, 1);
        BSF_INFO("diameter", "repaving %s: DPR (%s) to %s", t->id, r->cause, all[i].id);
    }
    bsf_rx_connections_snapshot_free(all, n);
    BSF_INFO("diameter", "repaving %s: done, %llu connection(s) disconnected", t->id,
             (unsigned long long)done);
}

static void *repaving_main(void *arg)
{
    bsf_rx_repaving_t *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!bsf_worker_stopping(&r->worker)) {
        bsf_rx_repave_trigger_t t;
        switch (bsf_rx_repave_queue_next(&r->queue, r->delay_ms, &t)) {
        case BSF_RX_REPAVE_NONE:
            pthread_cond_wait(&r->wake, &r->lock);
            break;
        case BSF_RX_REPAVE_SKIPPED:
            atomic_fetch_add(&r->skipped, 1);
            BSF_WARN("diameter",
                     "repaving %s skipped: requested within %llu ms of the previous run's end",
                     t.id, (unsigned long long)r->delay_ms);
            break;
        case BSF_RX_REPAVE_RUN:
            run_trigger(r, &t);
            bsf_rx_repave_queue_done(&r->queue, bsf_clock_wall_ms());
            atomic_fetch_add(&r->completed, 1);
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int bsf_rx_repaving_start(const bsf_diameter_settings_t *s, bsf_rx_connections_t *connections,
                          bsf_rx_repaving_t **out, char *err, size_t cap)
{
    *out = NULL;
    bsf_rx_repaving_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, cap, "diameter: out of memory");
        return -1;
    }
    r->connections = connections;
    r->enabled = s->repaving;
    r->jitter_ms = s->repaving_jitter_ms;
    r->interval_ms = s->repaving_interval_ms;
    r->delay_ms = (uint64_t)s->repaving_delay_min * 60000u;
    snprintf(r->cause, sizeof r->cause, "%s",
             bsf_rx_disconnect_cause_name((bsf_rx_disconnect_cause_t)s->repaving_cause));
    if (getrandom(&r->seed, sizeof r->seed, 0) != (ssize_t)sizeof r->seed)
        r->seed = (unsigned)bsf_clock_mono_ns();
    pthread_mutex_init(&r->lock, NULL);
    bsf_cond_init_monotonic(&r->wake);
    int rc = bsf_worker_start(&r->worker, repaving_main, r, NULL);
    if (rc) {
        snprintf(err, cap, "diameter: cannot start the repaving thread: %s", bsf_strerror(rc));
        bsf_rx_repaving_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void bsf_rx_repaving_stop(bsf_rx_repaving_t *r)
{
    if (r)
        bsf_worker_stop(&r->worker, &r->lock, &r->wake);
}

void bsf_rx_repaving_free(bsf_rx_repaving_t *r)
{
    if (!r)
        return;
    bsf_rx_repaving_stop(r);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

bsf_rx_repave_offer_t bsf_rx_repaving_trigger(bsf_rx_repaving_t *r, const char *id,
                                              bsf_rx_repave_trigger_t *t)
{
    memset(t, 0, sizeof *t);
    if (id && id[0]) {
        snprintf(t->id, sizeof t->id, "%s", id);
    } else {
        uuid_t u;
        uuid_generate_random(u);
        uuid_unparse_lower(u, t->id);
    }
    t->request_ms = bsf_clock_wall_ms();
    pthread_mutex_lock(&r->lock);
    bsf_rx_repave_offer_t o = bsf_rx_repave_queue_offer(&r->queue, t, r->enabled);
    if (o == BSF_RX_REPAVE_QUEUED)
        pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
    atomic_fetch_add(&r->outcomes[o], 1);
    BSF_INFO("diameter", "repaving trigger %s: %s", t->id, bsf_rx_repave_offer_name(o));
    return o;
}

void bsf_rx_repaving_set_enabled(bsf_rx_repaving_t *r, bool enabled)
{
    pthread_mutex_lock(&r->lock);
    if (r->enabled != enabled)
        BSF_INFO("diameter", "connection repaving %s", enabled ? "enabled" : "disabled");
    r->enabled = enabled;
    pthread_mutex_unlock(&r->lock);
}

void bsf_rx_repaving_status(bsf_rx_repaving_t *r, bsf_rx_repaving_status_t *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&r->lock);
    st->enabled = r->enabled;
    st->jitter_ms = r->jitter_ms;
    st->interval_ms = r->interval_ms;
    st->delay_min = r->delay_ms / 60000u;
    st->cause = r->cause;
    st->busy = r->queue.busy;
    if (st->busy)
        st->current = r->queue.current;
    st->queued = r->queue.count;
    memcpy(st->last_id, r->queue.last_id, sizeof st->last_id);
    st->last_completed_ms = r->queue.last_completed_ms;
    pthread_mutex_unlock(&r->lock);
    st->disconnections = atomic_load(&r->disconnections);
}

void bsf_rx_repaving_write_metrics(bsf_rx_repaving_t *r, bsf_text_t *out)
{
    bsf_rx_repaving_status_t st;
    bsf_rx_repaving_status(r, &st);
    bsf_metrics_u64_family(out, "diam_repaving_disconnections_total", "counter",
                           "Connections ended by repaving (seed 3.45).", st.disconnections);
    bsf_metrics_family(out, "diam_repaving_triggers_total", "counter",
                       "Repaving triggers by outcome.");
    for (int o = BSF_RX_REPAVE_QUEUED; o <= BSF_RX_REPAVE_QUEUE_FULL; o++)
        bsf_metrics_u64_label(out, "diam_repaving_triggers_total", "outcome",
                              bsf_rx_repave_offer_name((bsf_rx_repave_offer_t)o),
                              atomic_load(&r->outcomes[o]));
    bsf_metrics_u64_label(out, "diam_repaving_triggers_total", "outcome", "completed",
                          atomic_load(&r->completed));
    bsf_metrics_u64_label(out, "diam_repaving_triggers_total", "outcome", "skipped",
                          atomic_load(&r->skipped));
    const bsf_metric_row_t rows[] = {
        {"diam_repaving_busy", "gauge", "1 while a repaving runs.", st.busy},
        {"diam_repaving_queued", "gauge", "Repaving triggers waiting.", st.queued},
    };
    BSF_METRICS_ROWS(out, rows);
}
