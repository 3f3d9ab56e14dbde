#include "gateways/ops/nf_scoring.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "common/metrics_text.h"
#include "common/worker_thread.h"

struct bsf_nf_scoring {
    bsf_nf_scoring_config_t cfg;
    bsf_worker_t worker;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* under mu: the previous sample, and the last result */
    uint64_t last_requests, last_ns;
    double tps;
    bsf_nf_score_t score;
};

static void sample_locked(bsf_nf_scoring_t *s)
{
    bsf_nf_scoring_sample_t smp = {0};
    s->cfg.gather(s->cfg.ctx, &smp);
    uint64_t now = bsf_clock_mono_ns();
    if (now > s->last_ns && smp.requests >= s->last_requests)
        s->tps = (double)(smp.requests - s->last_requests) * 1e9 / (double)(now - s->last_ns);
    s->last_requests = smp.requests;
    s->last_ns = now;
    smp.inputs.tps = s->tps;
    bsf_nf_score_compute(&s->cfg.weights, &smp.inputs, &s->score);
}

static void *scoring_main(void *arg)
{
    bsf_nf_scoring_t *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!bsf_worker_stopping(&s->worker)) {
        if (bsf_cond_wait_ms(&s->cv, &s->mu, s->cfg.interval_ms) == -ETIMEDOUT &&
            !bsf_worker_stopping(&s->worker))
            sample_locked(s);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int bsf_nf_scoring_start(const bsf_nf_scoring_config_t *cfg, bsf_nf_scoring_t **out)
{
    *out = NULL;
    if (!cfg->enabled)
        return 0;
    bsf_nf_scoring_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->cfg = *cfg;
    int rc = bsf_cond_init_monotonic(&s->cv);
    if (rc) {
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->mu, NULL);
    s->last_ns = bsf_clock_mono_ns();
    pthread_mutex_lock(&s->mu);
    sample_locked(s); /* the levels at once; the rate from the first interval on */
    pthread_mutex_unlock(&s->mu);
    if ((rc = bsf_worker_start(&s->worker, scoring_main, s, NULL))) {
        bsf_nf_scoring_stop(s);
        return rc;
    }
    *out = s;
    return 0;
}

void bsf_nf_scoring_stop(bsf_nf_scoring_t *s)
{
    if (!s)
        return;
    bsf_worker_stop(&s->worker, &s->mu, &s->cv);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

void bsf_nf_scoring_refresh(bsf_nf_scoring_t *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    sample_locked(s);
    pthread_mutex_unlock(&s->mu);
}

bool bsf_nf_scoring_last(bsf_nf_scoring_t *s, bsf_nf_score_t *out, double *tps)
{
    if (!s)
        return false;
    pthread_mutex_lock(&s->mu);
    *out = s->score;
    *tps = s->tps;
    pthread_mutex_unlock(&s->mu);
    return true;
}

unsigned bsf_nf_scoring_load(bsf_nf_scoring_t *s, unsigned fallback)
{
    bsf_nf_score_t sc;
    double tps;
    return bsf_nf_scoring_last(s, &sc, &tps) ? bsf_nf_score_load(&s->cfg.weights, tps) : fallback;
}

static const char *const factor_names[] = {"tps", "service", "connection", "replication",
                                           "locality", "alerts"};

static void factors(const bsf_nf_score_t *sc, double v[6])
{
    v[0] = sc->tps;
    v[1] = sc->service;
    v[2] = sc->connection;
    v[3] = sc->replication;
    v[4] = sc->locality;
    v[5] = sc->alerts;
}

void bsf_nf_scoring_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_nf_score_t sc;
    double tps, v[6];
    if (!bsf_nf_scoring_last(ctx, &sc, &tps))
        return;
    factors(&sc, v);
    bsf_metrics_double_family(out, "bsf_nf_score", "gauge",
                              "NF score of the site (seed 3.41): the factors' sum less the "
                              "alerts'",
                              3, sc.total);
    bsf_metrics_family(out, "bsf_nf_score_factor", "gauge",
                       "Each factor's share of the NF score (alerts: what they take off)");
    for (size_t i = 0; i < 6; i++) {
        char labels[48];
        snprintf(labels, sizeof labels, "factor=\"%s\"", factor_names[i]);
        bsf_metrics_double(out, "bsf_nf_score_factor", labels, 3, v[i]);
    }
    bsf_metrics_double_family(out, "bsf_nf_scoring_tps", "gauge",
                              "Requests per second (SBI and Diameter, ingress and egress) over "
                              "the last scoring interval",
                              1, tps);
}

json_t *bsf_nf_scoring_json(bsf_nf_scoring_t *s, bool refresh)
{
    bsf_nf_score_t sc;
    double tps, v[6];
    if (refresh)
        bsf_nf_scoring_refresh(s);
    if (!bsf_nf_scoring_last(s, &sc, &tps))
        return json_pack("{s:b}", "enabled", 0);
    factors(&sc, v);
    json_t *f = json_object();
    for (size_t i = 0; f && i < 6; i++)
        json_object_set_new(f, factor_names[i], json_real(v[i]));
    return f ? json_pack("{s:b,s:f,s:f,s:I,s:o}", "enabled", 1, "score", sc.total, "tps", tps,
                         "load", (json_int_t)bsf_nf_score_load(&s->cfg.weights, tps), "factors",
                         f)
             : NULL;
}
