/* The NRF client; see nrf_client.h. Procedures: register (a round over the NRFs by
 * priority, then autonomous retries with back-off), heartbeat, deregister. */
#include "gateways/nrf/nrf_client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "common/deadline.h"
#include "common/diag.h"
#include "common/operational_state.h"
#include "common/time_text.h"
#include "core/sbi_time.h"
#include "gateways/admission/message_profile.h"
#include "gateways/nrf/nrf_profile.h"

#define NFM_PATH "/nnrf-nfm/v1/nf-instances/"

typedef enum { NRF_REGISTERING, NRF_REGISTERED, NRF_DEREGISTERING, NRF_DEREGISTERED } state_t;
static const char *const state_names[] = {"REGISTERING", "REGISTERED", "DEREGISTERING",
                                          "DEREGISTERED"};

/* TICK_STATUS: the operational state changed; NFUpdate at once (seed §3.39). */
typedef enum { TICK_REGISTER, TICK_HEARTBEAT, TICK_DEREGISTER, TICK_STATUS } tick_kind_t;

struct bsf_nrf_client {
    bsf_nrf_settings_t s;
    char instance_id[64];
    bsf_sbi_client_t *sbi;
    bsf_nrf_health_t *health; /* shared; any thread (its own mutex) */
    char *profile;            /* the NFProfile JSON, built once */
    unsigned (*load_fn)(void *ctx, unsigned fallback);
    void *load_ctx;
    /* client thread */
    unsigned gen;             /* timers of an older generation are ignored */
    uint32_t tried;           /* NRFs tried in this registration round */
    int target;               /* NRF of the request in flight */
    unsigned backoff_ms;
    bool stopping;
    bool heartbeat_in_flight; /* an NFUpdate awaits its answer */
    bool status_dirty;        /* the state changed while it was in flight: again at once */
    /* shared with the ops thread and the main thread: under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool deregistered;        /* the deregistration finished (or was given up) */
    state_t state;
    int current;              /* NRF registered with, -1 */
    unsigned heartbeat_s;
    int64_t last_heartbeat_ms; /* wall clock; 0 never */
    char last_error[256];
    uint64_t registrations, heartbeats_ok, heartbeats_failed, reregistrations_404;
};

typedef struct {
    bsf_nrf_client_t *n;
    unsigned gen;
    tick_kind_t kind;
} tick_t;

static void begin_register(bsf_nrf_client_t *n);
static void register_next(bsf_nrf_client_t *n);
static void heartbeat(bsf_nrf_client_t *n);
static void deregister_now(bsf_nrf_client_t *n);
static void status_changed(bsf_nrf_client_t *n);

/* Records "<what>: <detail>" as the last error and logs it. */
static void set_error(bsf_nrf_client_t *n, const char *what, const char *detail)
{
    pthread_mutex_lock(&n->mu);
    snprintf(n->last_error, sizeof n->last_error, "%s: %s", what, detail);
    pthread_mutex_unlock(&n->mu);
    BSF_WARN("nrf", "%s: %s", what, detail);
}

static void ignore_answer(void *arg, const bsf_sbi_response_t *rsp)
{
    (void)arg;
    (void)rsp;
}

/* ---- timers ------------------------------------------------------------------------ */

static void on_tick(void *arg, bool stopped)
{
    tick_t *t = arg;
    bsf_nrf_client_t *n = t->n;
    bool current = t->gen == n->gen;
    tick_kind_t kind = t->kind;
    free(t);
    if (kind == TICK_DEREGISTER) {
        if (stopped) {
            pthread_mutex_lock(&n->mu);
            n->deregistered = true;
            pthread_cond_broadcast(&n->cv);
            pthread_mutex_unlock(&n->mu);
        } else {
            deregister_now(n);
        }
        return;
    }
    if (stopped || (!current && kind != TICK_STATUS) || n->stopping)
        return;
    if (kind == TICK_REGISTER)
        begin_register(n);
    else if (kind == TICK_HEARTBEAT)
        heartbeat(n);
    else
        status_changed(n);
}

static void schedule(bsf_nrf_client_t *n, unsigned delay_ms, tick_kind_t kind)
{
    tick_t *t = malloc(sizeof *t);
    if (!t)
        return;
    *t = (tick_t){n, n->gen, kind};
    if (bsf_sbi_client_post(n->sbi, delay_ms, on_tick, t))
        free(t);
}

/* ---- requests ---------------------------------------------------------------------- */

static void nfm_uri(const bsf_nrf_client_t *n, int i, char *out, size_t cap)
{
    snprintf(out, cap, "%s" NFM_PATH "%s", bsf_nrf_health_uri(n->health, i), n->instance_id);
}

static void describe(const bsf_sbi_response_t *rsp, char *out, size_t cap)
{
    if (rsp->result != BSF_SBI_OK)
        snprintf(out, cap, "%s", rsp->error ? rsp->error : "no answer");
    else if (rsp->has_problem && rsp->problem.cause[0])
        snprintf(out, cap, "%d %s", rsp->status, rsp->problem.cause);
    else
        snprintf(out, cap, "%d", rsp->status);
}

static int nrf_send(bsf_nrf_client_t *n, int i, const char *method, const char *ctype,
                const char *body, unsigned timeout_ms, unsigned retries, bsf_sbi_done_fn done)
{
    char uri[512], err[160];
    nfm_uri(n, i, uri, sizeof uri);
    bsf_sbi_retry_profile_t p;
    bsf_nrf_health_retry_profile(n->health, i, timeout_ms, &p);
    p.max_retries = retries;
    p.attempt_timeout_ms = timeout_ms / (retries + 2);
    /* Seed §3.1: NRF messages' priorities from the message profile (interfaceType Nnrf),
     * by default heartbeat (NFUpdate PATCH) 3, NFDeregister 2, NFRegister 1: the NRF and an
     * SCP keep them when they shed. */
    bool patch = strcmp(method, "PATCH") == 0, del = strcmp(method, "DELETE") == 0;
    int priority = bsf_message_profile_nrf(patch ? BSF_MP_NF_PATCH
                                           : del ? BSF_MP_NF_DEREGISTER
                                                 : BSF_MP_NF_REGISTER);
    /* the profile is evaluated without a priority of the client's own: rcvd_priority NA */
    bsf_mp_egress_tag_t metric = {patch ? BSF_MP_EGRESS_NF_PATCH
                                  : del ? BSF_MP_EGRESS_NF_DEREGISTER
                                        : BSF_MP_EGRESS_NF_REGISTER, -1};
    bsf_sbi_request_t q = {.method = method, .uri = uri, .content_type = ctype, .body = body,
                           .body_len = body ? strlen(body) : 0, .timeout_ms = timeout_ms,
                           .priority = priority, .metric = metric, .retry = &p};
    n->target = i;
    if (bsf_sbi_client_submit(n->sbi, &q, done, n, err, sizeof err)) {
        set_error(n, uri, err);
        return -1;
    }
    return 0;
}

/* ---- register ---------------------------------------------------------------------- */

/* No NRF took the registration in this round: again later. */
static void round_failed(bsf_nrf_client_t *n)
{
    unsigned delay = n->backoff_ms;
    n->backoff_ms = n->backoff_ms * 2 > n->s.retry_max_ms ? n->s.retry_max_ms
                                                          : n->backoff_ms * 2;
    schedule(n, delay, TICK_REGISTER);
}

static unsigned granted_timer(const bsf_sbi_response_t *rsp, unsigned proposed)
{
    json_t *p = json_loadb(rsp->body, rsp->body_len, 0, NULL);
    json_t *hb = json_object_get(p, "heartBeatTimer");
    unsigned v = proposed;
    if (json_is_integer(hb) && json_integer_value(hb) >= 1 && json_integer_value(hb) <= 86400)
        v = (unsigned)json_integer_value(hb);
    json_decref(p);
    return v;
}

static void registered(bsf_nrf_client_t *n, const bsf_sbi_response_t *rsp)
{
    int i = n->target;
    unsigned hb = granted_timer(rsp, n->s.heartbeat_s);
    pthread_mutex_lock(&n->mu);
    int old = n->current;
    bool was_registered = n->state == NRF_REGISTERED;
    n->state = NRF_REGISTERED;
    n->current = i;
    n->heartbeat_s = hb;
    n->last_heartbeat_ms = (int64_t)bsf_clock_wall_ms();
    n->last_error[0] = '\0';
    n->registrations++;
    pthread_mutex_unlock(&n->mu);
    bsf_nrf_health_succeeded(n->health, i);
    BSF_INFO("nrf", "registered with %s (%d, heartBeatTimer %u s)",
             bsf_nrf_health_uri(n->health, i), rsp->status, hb);
    n->backoff_ms = n->s.retry_min_ms;
    if (was_registered && old >= 0 && old != i) /* failed back: leave the other NRF */
        nrf_send(n, old, "DELETE", NULL, NULL, n->s.timeout_ms, 0, ignore_answer);
    schedule(n, hb * 1000, TICK_HEARTBEAT);
}

static void on_register_done(void *arg, const bsf_sbi_response_t *rsp)
{
    bsf_nrf_client_t *n = arg;
    if (n->stopping)
        return;
    if (rsp->result == BSF_SBI_OK && (rsp->status == 200 || rsp->status == 201)) {
        registered(n, rsp);
        return;
    }
    char what[200];
    describe(rsp, what, sizeof what);
    set_error(n, "NFRegister", what);
    if (bsf_nrf_health_report(n->health, n->target, rsp)) {
        register_next(n);
    } else {
        round_failed(n); /* the NRF is fine but refused: try again later */
    }
}

/* The profile with the nfStatus of the operational state now (caller frees; NULL: out of
 * memory). */
static char *profile_with_status(const bsf_nrf_client_t *n)
{
    json_t *p = json_loads(n->profile, 0, NULL);
    if (!p || json_object_set_new(p, "nfStatus", json_string(bsf_opstate_nf_status()))) {
        json_decref(p);
        return NULL;
    }
    char *text = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    return text;
}

static void register_next(bsf_nrf_client_t *n)
{
    unsigned tried = (unsigned)__builtin_popcount(n->tried);
    int i = bsf_nrf_health_pick(n->health, n->tried);
    if (i < 0 || !bsf_nrf_health_may_try(n->health, tried)) {
        round_failed(n);
        return;
    }
    n->tried |= 1u << i;
    unsigned retries = i == 0 ? n->s.primary_retries : 0;
    char *body = profile_with_status(n);
    int rc = body ? nrf_send(n, i, "PUT", "application/json", body, n->s.timeout_ms, retries,
                             on_register_done)
                  : -1;
    free(body);
    if (rc)
        round_failed(n);
}

static void begin_register(bsf_nrf_client_t *n)
{
    n->tried = 0;
    pthread_mutex_lock(&n->mu);
    if (n->state != NRF_REGISTERED)
        n->state = NRF_REGISTERING;
    pthread_mutex_unlock(&n->mu);
    register_next(n);
}

/* ---- heartbeat --------------------------------------------------------------------- */

static void on_heartbeat_done(void *arg, const bsf_sbi_response_t *rsp)
{
    bsf_nrf_client_t *n = arg;
    n->heartbeat_in_flight = false;
    if (n->stopping)
        return;
    if (rsp->result == BSF_SBI_OK && (rsp->status == 204 || rsp->status == 200)) {
        pthread_mutex_lock(&n->mu);
        n->last_heartbeat_ms = (int64_t)bsf_clock_wall_ms();
        n->heartbeats_ok++;
        unsigned hb = n->heartbeat_s;
        pthread_mutex_unlock(&n->mu);
        bsf_nrf_health_succeeded(n->health, n->target);
        bool again = n->status_dirty;
        n->status_dirty = false;
        schedule(n, again ? 0 : hb * 1000, TICK_HEARTBEAT);
        return;
    }
    n->status_dirty = false; /* registering again sends the current status */
    char what[200];
    describe(rsp, what, sizeof what);
    set_error(n, "NFUpdate (heartbeat)", what);
    pthread_mutex_lock(&n->mu);
    n->heartbeats_failed++;
    if (rsp->result == BSF_SBI_OK && rsp->status == 404)
        n->reregistrations_404++;
    n->state = NRF_REGISTERING; /* 404: the NRF forgot us; failure: another NRF */
    n->current = -1;
    pthread_mutex_unlock(&n->mu);
    bsf_nrf_health_report(n->health, n->target, rsp);
    begin_register(n);
}

static void heartbeat(bsf_nrf_client_t *n)
{
    int better = bsf_nrf_health_first_healthy(n->health);
    pthread_mutex_lock(&n->mu);
    int current = n->current;
    pthread_mutex_unlock(&n->mu);
    if (current < 0)
        return;
    /* a preferred NRF is back, or another user (discovery, tokens) found this one failing
     * and another is healthy: register there */
    if (better >= 0 && (better < current || !bsf_nrf_health_healthy(n->health, current))) {
        begin_register(n);
        return;
    }
    /* SUSPENDED while the operational state is not NORMAL (seed §3.39). */
    unsigned load = n->load_fn ? n->load_fn(n->load_ctx, n->s.load) : n->s.load;
    json_t *patch = bsf_nrf_heartbeat_patch(bsf_opstate_nf_status(), load);
    char *body = json_dumps(patch, JSON_COMPACT);
    json_decref(patch);
    unsigned retries = current == 0 ? n->s.primary_retries : 0;
    int rc = body ? nrf_send(n, current, "PATCH", "application/json-patch+json", body,
                         n->s.timeout_ms, retries, on_heartbeat_done)
                  : -1;
    free(body);
    n->heartbeat_in_flight = rc == 0;
    if (rc)
        schedule(n, n->heartbeat_s * 1000, TICK_HEARTBEAT);
}

/* The operational state changed: the NRF hears it now, not at the next heartbeat. The
 * pending heartbeat timer is cancelled (a new generation); a heartbeat in flight is followed
 * by another at once. While registering, the registration carries the status. */
static void status_changed(bsf_nrf_client_t *n)
{
    pthread_mutex_lock(&n->mu);
    bool registered = n->state == NRF_REGISTERED && n->current >= 0;
    pthread_mutex_unlock(&n->mu);
    if (!registered)
        return;
    if (n->heartbeat_in_flight) {
        n->status_dirty = true;
        return;
    }
    n->gen++;
    heartbeat(n);
}

static void on_opstate_change(void *ctx, bsf_opstate_t from, bsf_opstate_t to)
{
    (void)from;
    (void)to;
    schedule(ctx, 0, TICK_STATUS);
}

/* ---- deregister -------------------------------------------------------------------- */

static void deregistered(bsf_nrf_client_t *n)
{
    pthread_mutex_lock(&n->mu);
    n->state = NRF_DEREGISTERED;
    n->deregistered = true;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
}

static void on_deregister_done(void *arg, const bsf_sbi_response_t *rsp)
{
    bsf_nrf_client_t *n = arg;
    char what[200];
    describe(rsp, what, sizeof what);
    if (rsp->result == BSF_SBI_OK && (rsp->status == 204 || rsp->status == 200))
        BSF_INFO("nrf", "deregistered from %s", bsf_nrf_health_uri(n->health, n->target));
    else
        set_error(n, "NFDeregister", what);
    deregistered(n);
}

static void deregister_now(bsf_nrf_client_t *n)
{
    n->stopping = true;
    n->gen++;
    pthread_mutex_lock(&n->mu);
    int current = n->state == NRF_REGISTERED ? n->current : -1;
    if (current >= 0)
        n->state = NRF_DEREGISTERING;
    pthread_mutex_unlock(&n->mu);
    if (current < 0 || nrf_send(n, current, "DELETE", NULL, NULL, n->s.deregister_timeout_ms, 0,
                            on_deregister_done))
        deregistered(n);
}

void bsf_nrf_client_deregister(bsf_nrf_client_t *n)
{
    tick_t *t = malloc(sizeof *t);
    if (!t)
        return;
    *t = (tick_t){n, 0, TICK_DEREGISTER};
    if (bsf_sbi_client_post(n->sbi, 0, on_tick, t)) {
        free(t);
        return;
    }
    struct timespec until = bsf_deadline_after_ms((uint64_t)n->s.deregister_timeout_ms + 500);
    pthread_mutex_lock(&n->mu);
    while (!n->deregistered)
        if (bsf_cond_wait_until(&n->cv, &n->mu, &until))
            break;
    pthread_mutex_unlock(&n->mu);
}

/* ---- start, free ------------------------------------------------------------------- */

int bsf_nrf_client_start(const bsf_nrf_client_config_t *cfg, bsf_sbi_client_t *sbi,
                         bsf_nrf_client_t **out, char *err, size_t err_cap)
{
    bsf_nrf_client_t *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    n->s = *cfg->settings;
    snprintf(n->instance_id, sizeof n->instance_id, "%s", cfg->instance_id);
    n->sbi = sbi;
    n->health = cfg->health;
    n->current = -1;
    n->heartbeat_s = n->s.heartbeat_s;
    n->backoff_ms = n->s.retry_min_ms;
    n->load_fn = cfg->load_fn;
    n->load_ctx = cfg->load_ctx;
    pthread_mutex_init(&n->mu, NULL);
    if (bsf_cond_init_monotonic(&n->cv)) { /* the deregistration's wait is a monotonic one */
        snprintf(err, err_cap, "out of memory");
        pthread_mutex_destroy(&n->mu);
        free(n);
        return -1;
    }
    if (bsf_nrf_health_count(n->health) == 0) {
        snprintf(err, err_cap, "nrf.uri is empty");
        bsf_nrf_client_free(n);
        return -1;
    }
    bsf_nrf_profile_input_t in = {.settings = &n->s, .instance_id = n->instance_id,
                                  .nf_status = "REGISTERED", .listen_host = cfg->listen_host,
                                  .listen_port = cfg->listen_port, .api_root = cfg->api_root,
                                  .rx_host = cfg->rx_host, .rx_realm = cfg->rx_realm,
                                  .load = n->s.load};
    json_t *profile = bsf_nrf_profile_build(&in, err, err_cap);
    n->profile = profile ? json_dumps(profile, JSON_COMPACT) : NULL;
    json_decref(profile);
    if (!n->profile) {
        bsf_nrf_client_free(n);
        return -1;
    }
    schedule(n, 0, TICK_REGISTER);
    bsf_opstate_add_listener(on_opstate_change, n);
    *out = n;
    return 0;
}

bool bsf_nrf_client_registered(bsf_nrf_client_t *n)
{
    pthread_mutex_lock(&n->mu);
    bool r = n->state == NRF_REGISTERED;
    pthread_mutex_unlock(&n->mu);
    return r;
}

void bsf_nrf_client_free(bsf_nrf_client_t *n)
{
    if (!n)
        return;
    bsf_opstate_remove_listener(on_opstate_change, n);
    free(n->profile);
    pthread_mutex_destroy(&n->mu);
    pthread_cond_destroy(&n->cv);
    free(n);
}

typedef struct {
    bsf_nrf_client_t *n;
    unsigned timeout_ms, retry_min_ms, retry_max_ms;
} timers_t;

static void on_timers(void *arg, bool stopped)
{
    timers_t *t = arg;
    bsf_nrf_client_t *n = t->n;
    if (!stopped) {
        n->s.timeout_ms = t->timeout_ms;
        n->s.retry_min_ms = t->retry_min_ms;
        n->s.retry_max_ms = t->retry_max_ms;
        if (n->backoff_ms < n->s.retry_min_ms)
            n->backoff_ms = n->s.retry_min_ms;
        if (n->backoff_ms > n->s.retry_max_ms)
            n->backoff_ms = n->s.retry_max_ms;
    }
    free(t);
}

void bsf_nrf_client_set_timers(bsf_nrf_client_t *n, unsigned timeout_ms, unsigned retry_min_ms,
                               unsigned retry_max_ms)
{
    timers_t *t = malloc(sizeof *t);
    if (!t) {
        BSF_ERROR("nrf", "out of memory: NRF timers not changed");
        return;
    }
    *t = (timers_t){n, timeout_ms, retry_min_ms, retry_max_ms};
    if (bsf_sbi_client_post(n->sbi, 0, on_timers, t)) {
        BSF_WARN("nrf", "the SBI client is stopping: NRF timers not changed");
        free(t);
    }
}

/* ---- status and metrics ------------------------------------------------------------ */

json_t *bsf_nrf_client_status_route(void *ctx, const char *method, const char *body, size_t len,
                                    int *status)
{
    (void)body;
    (void)len;
    bsf_nrf_client_t *n = ctx;
    if (strcmp(method, "GET") != 0) {
        *status = 405;
        return json_pack("{s:s}", "detail", "only GET");
    }
    json_t *nrfs = bsf_nrf_health_json(n->health);
    pthread_mutex_lock(&n->mu);
    char last[32] = "";
    if (n->last_heartbeat_ms)
        bsf_time_format_rfc3339(n->last_heartbeat_ms, last);
    json_t *out = json_pack(
        "{s:s,s:s,s:s?,s:i,s:s?,s:s?,s:o,s:I,s:I,s:I,s:I}", "nfInstanceId", n->instance_id,
        "state", state_names[n->state], "nrfInUse",
        bsf_nrf_health_uri(n->health, n->current), "heartBeatTimer",
        (int)n->heartbeat_s, "lastHeartbeat", last[0] ? last : NULL, "lastError",
        n->last_error[0] ? n->last_error : NULL, "nrfs", nrfs, "registrations",
        (json_int_t)n->registrations, "heartbeatsOk", (json_int_t)n->heartbeats_ok,
        "heartbeatsFailed", (json_int_t)n->heartbeats_failed, "reregistrationsAfter404",
        (json_int_t)n->reregistrations_404);
    pthread_mutex_unlock(&n->mu);
    *status = 200;
    return out;
}

void bsf_nrf_client_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_nrf_client_t *n = ctx;
    pthread_mutex_lock(&n->mu);
    const bsf_metric_row_t rows[] = {
        {"bsf_nrf_registered", "gauge", "1 while registered with an NRF.",
         n->state == NRF_REGISTERED},
        {"bsf_nrf_registrations_total", "counter", "Successful NFRegister.", n->registrations},
    };
    BSF_METRICS_ROWS(out, rows);
    static const char *const results[] = {"ok", "failed"};
    const uint64_t heartbeats[] = {n->heartbeats_ok, n->heartbeats_failed};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_nrf_heartbeats_total", "counter",
                                "NFUpdate heartbeats, by result.", "result", results, heartbeats);
    bsf_metrics_family(out, "bsf_nrf_operative_status", "gauge", "1 when the NRF is healthy.");
    pthread_mutex_unlock(&n->mu);
    bsf_nrf_health_write_metrics(n->health, out);
}
