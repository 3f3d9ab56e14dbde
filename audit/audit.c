/* The audit thread: cycles, the batched scan, the token bucket, the answered jobs. */
#include "audit/audit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_internal.h"
#include "common/clock.h"
#include "common/deadline.h"
#include "common/diag.h"
#include "common/error.h"
#include "common/metrics_text.h"
#include "common/operational_state.h"

#define IDLE_WAIT_MS 200u

/* Reads the next batch of candidates in one short snapshot. Returns 0 or an error. */
static int read_batch(struct bsf_audit *a, int64_t now_ms)
{
    const bsf_audit_settings_t *s = &a->cfg.settings;
    bsf_audit_scan_t q = {.site = a->cfg.site_id,
                          .due_before_ms = now_ms - (int64_t)s->min_ttl_ms,
                          .reaudit_before_ms = now_ms - (int64_t)s->interval_ms,
                          .max_scan = AUDIT_BATCH_SCAN};
    bsf_read_t *r;
    a->n_items = a->next_item = 0;
    msgpack_zone_clear(&a->zone);
    int rc = bsf_read_acquire(a->store, &r);
    if (rc)
        return rc;
    if (!(rc = bsf_read_begin(r))) {
        rc = bsf_read_audit_batch(r, &q, &a->cursor, &a->zone, a->items, AUDIT_BATCH_ITEMS,
                                  &a->n_items);
        bsf_read_end(r);
    }
    bsf_read_release(r);
    atomic_fetch_add(&a->n[C_CANDIDATES], a->n_items);
    return rc;
}

/* Sends the jobs that wait to ask again, while tokens last. Returns 0 or the ns to wait. */
static uint64_t send_ready(struct bsf_audit *a)
{
    while (a->ready) {
        uint64_t wait = 0;
        if (!bsf_token_bucket_take(&a->bucket, bsf_clock_mono_ns(), &wait))
            return wait;
        audit_job_t *j = a->ready;
        a->ready = j->next;
        bsf_audit_job_send(j);
    }
    return 0;
}

/* Starts a cycle when due, then takes candidates while tokens and the in-flight bound allow.
 * Returns the ns until there is more to do. */
static uint64_t step_scan(struct bsf_audit *a)
{
    if (bsf_opstate_audits_paused()) /* COMPLETE_SHUTDOWN (seed 3.39): no query, no removal */
        return 1000000000u;
    int64_t now_ms = (int64_t)bsf_clock_wall_ms();
    if (!a->in_cycle) {
        uint64_t due = a->cycle_start_ms + a->cfg.settings.interval_ms;
        if (a->cycle_start_ms && (uint64_t)now_ms < due)
            return (due - (uint64_t)now_ms) * 1000000u;
        a->in_cycle = true;
        a->cycle_start_ms = (uint64_t)now_ms;
        a->cursor = (bsf_audit_cursor_t){0};
        a->n_items = a->next_item = 0;
        audit_count(a, C_CYCLES);
    }
    while (atomic_load(&a->inflight) < BSF_AUDIT_MAX_INFLIGHT) {
        if (a->next_item == a->n_items) {
            if (a->cursor.done) {
                a->in_cycle = false;
                return 1000000u; /* the next loop computes the wait to the next cycle */
            }
            int rc = read_batch(a, now_ms);
            if (rc) {
                BSF_WARN("audit", "cannot read the bindings: %s", bsf_strerror(rc));
                a->in_cycle = false; /* again at the next cycle */
                return IDLE_WAIT_MS * 1000000ull;
            }
            continue;
        }
        uint64_t wait = bsf_audit_take_item(a, &a->items[a->next_item], now_ms);
        if (wait)
            return wait;
        a->next_item++;
    }
    return IDLE_WAIT_MS * 1000000ull; /* the answers wake the thread */
}

/* Takes the answered jobs off the queue and acts on them. */
static void handle_answered(struct bsf_audit *a)
{
    pthread_mutex_lock(&a->mu);
    bsf_fifo_link_t *l = bsf_fifo_take_all(&a->done);
    pthread_mutex_unlock(&a->mu);
    while (l) {
        audit_job_t *j = BSF_FIFO_ENTRY(l, audit_job_t, done_link);
        l = l->next; /* before the job is answered: it may be queued again or freed */
        bsf_audit_job_answered(j);
    }
}

static void *audit_main(void *arg)
{
    struct bsf_audit *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!bsf_worker_stopping(&a->worker)) {
        pthread_mutex_unlock(&a->mu);
        handle_answered(a);
        uint64_t wait = send_ready(a);
        if (!wait)
            wait = step_scan(a);
        uint64_t ms = wait / 1000000u + 1;
        pthread_mutex_lock(&a->mu);
        if (!bsf_worker_stopping(&a->worker) && bsf_fifo_empty(&a->done))
            bsf_cond_wait_ms(&a->cv, &a->mu, ms < IDLE_WAIT_MS ? ms : IDLE_WAIT_MS);
    }
    pthread_mutex_unlock(&a->mu);
    /* Stopping: the jobs waiting for a token end here; those out end when answered. */
    while (a->ready) {
        audit_job_t *j = a->ready;
        a->ready = j->next;
        j->next = NULL;
        bsf_audit_job_answered(j);
    }
    while (atomic_load(&a->inflight)) {
        handle_answered(a);
        pthread_mutex_lock(&a->mu);
        if (bsf_fifo_empty(&a->done) && atomic_load(&a->inflight))
            bsf_cond_wait_ms(&a->cv, &a->mu, 50);
        pthread_mutex_unlock(&a->mu);
    }
    return NULL;
}

int bsf_audit_create(bsf_store_t *store, bsf_engine_t *engine, const bsf_audit_config_t *cfg,
                     bsf_audit_t **out, char *err, size_t err_cap)
{
    *out = NULL;
    if (!cfg->settings.enabled)
        return 0;
    struct bsf_audit *a = calloc(1, sizeof *a);
    if (!a || !msgpack_zone_init(&a->zone, 65536)) {
        free(a);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    a->store = store;
    a->engine = engine;
    a->cfg = *cfg;
    pthread_mutex_init(&a->mu, NULL);
    bsf_cond_init_monotonic(&a->cv);
    unsigned rate = cfg->settings.max_queries_per_s;
    bsf_token_bucket_init(&a->bucket, rate, rate / 50 ? rate / 50 : 1, bsf_clock_mono_ns());
    *out = a;
    return 0;
}

int bsf_audit_start(bsf_audit_t *a)
{
    if (!a)
        return 0;
    int rc = bsf_worker_start(&a->worker, audit_main, a, "bsf-audit");
    if (rc)
        return rc;
    BSF_INFO("audit", "binding audit every %llu ms: min_ttl %llu ms, max_ttl %llu ms, PCF "
                      "queries %s (at most %u/s)",
             (unsigned long long)a->cfg.settings.interval_ms,
             (unsigned long long)a->cfg.settings.min_ttl_ms,
             (unsigned long long)a->cfg.settings.max_ttl_ms,
             a->cfg.settings.query_pcf ? "on" : "off", a->cfg.settings.max_queries_per_s);
    return 0;
}

void bsf_audit_stop(bsf_audit_t *a)
{
    if (a)
        bsf_worker_stop(&a->worker, &a->mu, &a->cv);
}

void bsf_audit_destroy(bsf_audit_t *a)
{
    if (!a)
        return;
    bsf_audit_stop(a);
    msgpack_zone_destroy(&a->zone);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}

void bsf_audit_stats(bsf_audit_t *a, bsf_audit_stats_t *o)
{
    uint64_t v[14];
    for (int i = 0; i < 14; i++)
        v[i] = atomic_load(&a->n[i]);
    *o = (bsf_audit_stats_t){v[C_CYCLES], v[C_CANDIDATES], v[C_QUERIES], v[C_FOUND],
                             v[C_NOT_FOUND], v[C_FAILED_ANSWERS], v[C_CONFIRMED],
                             v[C_SUSPECTED], v[C_FAILED], v[C_REMOVED_404], v[C_REMOVED_TTL],
                             v[C_ALT_ASKED], v[C_ALT_FOUND], v[C_DROPPED],
                             atomic_load(&a->inflight)};
}

void bsf_audit_write_metrics(void *ctx, bsf_text_t *out)
{
    if (!ctx)
        return;
    bsf_audit_stats_t s;
    bsf_audit_stats(ctx, &s);
    const bsf_metric_row_t head[] = {
        {"bsf_audit_cycles_total", "counter",
         "Audit cycles started over the bindings this site created.", s.cycles},
        {"bsf_audit_candidates_total", "counter", "Bindings the scan found due for an audit.",
         s.scanned_candidates},
        {"bsf_audit_queries_total", "counter", "Audit queries sent to PCFs.", s.queries},
    };
    BSF_METRICS_ROWS(out, head);
    static const char *const answers[] = {"found", "not_found", "failed"};
    const uint64_t answered[] = {s.answers_found, s.answers_not_found, s.answers_failed};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_audit_answers_total", "counter",
                                "Answers to audit queries: 2xx, 404, anything else.", "answer",
                                answers, answered);
    static const char *const outcomes[] = {"confirmed",         "suspected",       "failed",
                                           "removed_not_found", "removed_max_ttl", "dropped"};
    const uint64_t outcome[] = {s.confirmed,         s.suspected,       s.failed,
                                s.removed_not_found, s.removed_max_ttl, s.dropped};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_audit_outcomes_total", "counter",
                                "Audit outcomes written (dropped: refused by the engine).",
                                "outcome", outcomes, outcome);
    static const char *const alternates[] = {"asked", "found"};
    const uint64_t alternate[] = {s.alternates_asked, s.alternates_found};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_audit_alternates_total", "counter",
                                "Alternate PCFs asked for and found (NF discovery).", "result",
                                alternates, alternate);
    bsf_metrics_u64_family(out, "bsf_audit_inflight", "gauge",
                           "Audit queries and discoveries out now.", s.inflight);
}
