/* Nnrf_NFDiscovery with a cache of SearchResults; see nf_discovery.h. */
#include "gateways/sbi/nf_discovery.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "core/api_root.h"
#include "gateways/admission/message_profile.h"

#define QUERY_MAX 512

typedef struct {
    char key[QUERY_MAX];     /* the query string: what the result answers */
    json_t *instances;       /* owned; NULL: a free slot */
    uint64_t expires_ms, used_ms; /* monotonic */
} entry_t;

typedef struct search search_t;

struct bsf_nf_discovery {
    bsf_sbi_client_t *sbi;
    bsf_nrf_health_t *nrfs;  /* shared with the NRF client and tokens; not owned */
    char requester[64];
    unsigned timeout_ms;
    uint64_t max_validity_ms;
    pthread_mutex_t mu;      /* the cache: searches start on any thread */
    entry_t *cache;
    size_t cache_size;
    search_t *inflight;      /* client thread: searches waiting for an NRF */
    atomic_uint_fast64_t searches, cache_hits, nrf_requests, nrf_failovers, failed;
};

struct search {
    search_t *next;          /* in flight: the next search; waiting: the next waiter */
    search_t *waiters;       /* searches of the same query served by this one's answer */
    bsf_nf_discovery_t *d;
    bsf_nf_discovery_done_fn done;
    void *arg;
    char query[QUERY_MAX];
    uint32_t tried;          /* NRFs asked (a bit per index) */
    int target;              /* the NRF asked now */
    unsigned asked;
    json_t *cached;          /* a cache hit, delivered on the client thread */
    char last_error[200];
};

static uint64_t now_ms(void)
{
    return bsf_clock_mono_ns() / 1000000u;
}

/* A query value this client sends without percent-encoding (NfSetId, ServiceName, NFType
 * and an NfInstanceId are made of these). */
static bool plain(const char *s)
{
    return s && s[0] && strlen(s) < 200 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_~") ==
               strlen(s);
}

bsf_nf_discovery_t *bsf_nf_discovery_create(bsf_sbi_client_t *sbi,
                                            const bsf_nf_discovery_config_t *cfg)
{
    bsf_nf_discovery_t *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->sbi = sbi;
    d->nrfs = cfg->nrfs;
    if (plain(cfg->requester_nf_instance_id))
        snprintf(d->requester, sizeof d->requester, "%s", cfg->requester_nf_instance_id);
    d->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : 2000;
    d->max_validity_ms = cfg->max_validity_ms ? cfg->max_validity_ms : 3600000;
    d->cache_size = cfg->cache_size;
    if (d->cache_size && !(d->cache = calloc(d->cache_size, sizeof *d->cache))) {
        free(d);
        return NULL;
    }
    pthread_mutex_init(&d->mu, NULL);
    return d;
}

bool bsf_nf_discovery_enabled(const bsf_nf_discovery_t *d)
{
    return d && bsf_nrf_health_count(d->nrfs) > 0;
}

/* The cached instances of `key` (a new reference), NULL when none or expired. */
static json_t *cache_get(bsf_nf_discovery_t *d, const char *key)
{
    json_t *got = NULL;
    uint64_t now = now_ms();
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->cache_size; i++) {
        entry_t *e = &d->cache[i];
        if (e->instances && now < e->expires_ms && strcmp(e->key, key) == 0) {
            e->used_ms = now;
            got = json_incref(e->instances);
            break;
        }
    }
    pthread_mutex_unlock(&d->mu);
    return got;
}

/* Keeps `instances` (a new reference is taken) for validity_ms: in the slot of the same
 * key, else a free or expired one, else the least recently used. */
static void cache_put(bsf_nf_discovery_t *d, const char *key, json_t *instances,
                      uint64_t validity_ms)
{
    if (!d->cache_size || !validity_ms)
        return;
    uint64_t now = now_ms();
    pthread_mutex_lock(&d->mu);
    entry_t *slot = NULL;
    for (size_t i = 0; i < d->cache_size && !slot; i++)
        if (d->cache[i].instances && strcmp(d->cache[i].key, key) == 0)
            slot = &d->cache[i];
    for (size_t i = 0; i < d->cache_size && !slot; i++)
        if (!d->cache[i].instances || d->cache[i].expires_ms <= now)
            slot = &d->cache[i];
    for (size_t i = 0; i < d->cache_size && !slot; i++) /* every slot live: the LRU one */
        for (size_t j = 0; j < d->cache_size; j++)
            if (!slot || d->cache[j].used_ms < slot->used_ms)
                slot = &d->cache[j];
    json_decref(slot->instances);
    snprintf(slot->key, sizeof slot->key, "%s", key);
    slot->instances = json_incref(instances);
    slot->expires_ms = now + validity_ms;
    slot->used_ms = now;
    pthread_mutex_unlock(&d->mu);
}

static void deliver_one(search_t *s, bsf_nf_discovery_result_t *r)
{
    if (!r->ok)
        atomic_fetch_add(&s->d->failed, 1);
    s->done(s->arg, r);
    json_decref(s->cached);
    free(s);
}

/* The result goes to `s` and to the searches that waited for it. */
static void deliver(search_t *s, bsf_nf_discovery_result_t *r)
{
    bsf_nf_discovery_t *d = s->d;
    for (search_t **p = &d->inflight; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    r->nrfs_asked = s->asked;
    search_t *w = s->waiters;
    deliver_one(s, r);
    while (w) {
        search_t *next = w->next;
        if (r->ok)
            atomic_fetch_add(&d->cache_hits, 1);
        deliver_one(w, r);
        w = next;
    }
}

static void ask_next(search_t *s);

/* A SearchResult (TS 29.510 §6.2.6.2.2): nfInstances required, validityPeriod (s). */
static void on_answer(void *arg, const bsf_sbi_response_t *rsp)
{
    search_t *s = arg;
    bsf_nf_discovery_t *d = s->d;
    const char *nrf = bsf_nrf_health_uri(d->nrfs, s->target);
    /* a failure marks that NRF unhealthy for its other users too (nrf_health.h) */
    bool failed = bsf_nrf_health_report(d->nrfs, s->target, rsp);
    if (failed || rsp->result != BSF_SBI_OK || rsp->from_scp) {
        if (rsp->result != BSF_SBI_OK)
            snprintf(s->last_error, sizeof s->last_error, "%s: %s", nrf, rsp->error);
        else
            snprintf(s->last_error, sizeof s->last_error, "%s: status %d", nrf, rsp->status);
        if (bsf_nrf_health_pick(d->nrfs, s->tried) >= 0 &&
            bsf_nrf_health_may_try(d->nrfs, s->asked))
            atomic_fetch_add(&d->nrf_failovers, 1);
        ask_next(s);
        return;
    }
    char why[240];
    bsf_nf_discovery_result_t r = {.nrf = nrf, .error = why};
    json_t *root = NULL;
    if (rsp->status != 200) {
        snprintf(why, sizeof why, "%s answered %d%s%s", nrf, rsp->status,
                 rsp->has_problem ? " " : "", rsp->has_problem ? rsp->problem.cause : "");
    } else if (!(root = json_loadb(rsp->body, rsp->body_len, 0, NULL)) ||
               !json_is_array(json_object_get(root, "nfInstances"))) {
        snprintf(why, sizeof why, "%s: not a SearchResult", nrf);
    } else {
        json_t *vp = json_object_get(root, "validityPeriod");
        json_int_t v = json_is_integer(vp) ? json_integer_value(vp) : 0;
        uint64_t validity = v > 0 ? (uint64_t)v * 1000u : 0;
        if (validity > d->max_validity_ms)
            validity = d->max_validity_ms;
        r.ok = true;
        r.error = NULL;
        r.nf_instances = json_object_get(root, "nfInstances");
        cache_put(d, s->query, r.nf_instances, validity);
    }
    deliver(s, &r);
    json_decref(root);
}

static void ask_next(search_t *s)
{
    bsf_nf_discovery_t *d = s->d;
    int i;
    /* the healthy NRFs by priority, within nrf.alternate_retries (seed §3.42) */
    while (bsf_nrf_health_may_try(d->nrfs, s->asked) &&
           (i = bsf_nrf_health_pick(d->nrfs, s->tried)) >= 0) {
        const char *nrf = bsf_nrf_health_uri(d->nrfs, i);
        s->tried |= 1u << i;
        s->target = i;
        char uri[256 + QUERY_MAX + 128];
        int n = snprintf(uri, sizeof uri, "%s/nnrf-disc/v1/nf-instances?%s%s%s", nrf, s->query,
                         d->requester[0] ? "&requester-nf-instance-id=" : "", d->requester);
        if (n < 0 || (size_t)n >= sizeof uri)
            continue;
        bsf_sbi_retry_profile_t retry;
        bsf_nrf_health_retry_profile(d->nrfs, i, d->timeout_ms, &retry);
        /* nrf.discovery.timeout is one attempt's: a slow NRF is not cut short for retries */
        retry.attempt_timeout_ms = 0;
        bsf_sbi_request_t req = {.method = "GET", .uri = uri, .timeout_ms = d->timeout_ms,
                                 .priority = bsf_message_profile_nrf(BSF_MP_NF_DISCOVER),
                                 .metric = {BSF_MP_EGRESS_NF_DISCOVER, -1},
                                 .retry = &retry};
        char err[200];
        s->asked++;
        atomic_fetch_add(&d->nrf_requests, 1);
        if (bsf_sbi_client_submit(d->sbi, &req, on_answer, s, err, sizeof err) == 0)
            return;
        snprintf(s->last_error, sizeof s->last_error, "%s: %s", nrf, err);
    }
    char why[260];
    snprintf(why, sizeof why, "no NRF answered (%u asked): %s", s->asked, s->last_error);
    bsf_nf_discovery_result_t r = {.error = why};
    deliver(s, &r);
}

/* On the client thread: a cache hit, or the first NRF request. */
static void on_posted(void *arg, bool stopped)
{
    search_t *s = arg;
    if (stopped) {
        bsf_nf_discovery_result_t r = {.error = "SBI client stopped"};
        deliver(s, &r);
        return;
    }
    bsf_nf_discovery_t *d = s->d;
    if (!s->cached) /* an answer may have come since the search started */
        s->cached = cache_get(d, s->query);
    if (s->cached) {
        atomic_fetch_add(&d->cache_hits, 1);
        bsf_nf_discovery_result_t r = {.ok = true, .nf_instances = s->cached, .cached = true};
        deliver_one(s, &r);
        return;
    }
    for (search_t *f = d->inflight; f; f = f->next)
        if (strcmp(f->query, s->query) == 0) { /* the same query is out: wait for it */
            s->next = f->waiters;
            f->waiters = s;
            return;
        }
    s->next = d->inflight;
    d->inflight = s;
    ask_next(s);
}

int bsf_nf_discovery_search(bsf_nf_discovery_t *d, const bsf_nf_discovery_query_t *q,
                            bsf_nf_discovery_done_fn done, void *arg)
{
    if (!bsf_nf_discovery_enabled(d) || !plain(q->target_nf_type) ||
        (q->target_nf_set_id && !plain(q->target_nf_set_id)) ||
        (q->service_name && !plain(q->service_name)))
        return -1;
    search_t *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    *s = (search_t){.d = d, .done = done, .arg = arg};
    snprintf(s->query, sizeof s->query, "target-nf-type=%s&requester-nf-type=BSF%s%s%s%s",
             q->target_nf_type, q->target_nf_set_id ? "&target-nf-set-id=" : "",
             q->target_nf_set_id ? q->target_nf_set_id : "",
             q->service_name ? "&service-names=" : "", q->service_name ? q->service_name : "");
    s->cached = cache_get(d, s->query);
    atomic_fetch_add(&d->searches, 1);
    if (bsf_sbi_client_post(d->sbi, 0, on_posted, s)) {
        json_decref(s->cached);
        free(s);
        return -1;
    }
    return 0;
}

void bsf_nf_discovery_free(bsf_nf_discovery_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->cache_size; i++)
        json_decref(d->cache[i].instances);
    free(d->cache);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

void bsf_nf_discovery_stats(bsf_nf_discovery_t *d, bsf_nf_discovery_stats_t *out)
{
    *out = (bsf_nf_discovery_stats_t){atomic_load(&d->searches), atomic_load(&d->cache_hits),
                                      atomic_load(&d->nrf_requests),
                                      atomic_load(&d->nrf_failovers), atomic_load(&d->failed)};
}

void bsf_nf_discovery_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_nf_discovery_stats_t s;
    bsf_nf_discovery_stats(ctx, &s);
    static const char *const outcomes[] = {"searched", "cache_hit", "failed"};
    const uint64_t searches[] = {s.searches, s.cache_hits, s.failed};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_nf_discovery_total", "counter",
                                "NF discovery searches by outcome.", "outcome", outcomes,
                                searches);
    const bsf_metric_row_t rows[] = {
        {"bsf_nf_discovery_nrf_requests_total", "counter", "Nnrf_NFDiscovery requests sent.",
         s.nrf_requests},
        {"bsf_nf_discovery_nrf_failovers_total", "counter", "Searches passed to the next NRF.",
         s.nrf_failovers},
    };
    BSF_METRICS_ROWS(out, rows);
}

/* The host of an NFService's end point, else of the profile; *port: the end point's, 0. */
static const char *first_address(json_t *svc, json_t *p, char *buf, size_t cap,
                                 json_int_t *port)
{
    json_t *ep = json_array_get(json_object_get(svc, "ipEndPoints"), 0);
    json_int_t pt = json_integer_value(json_object_get(ep, "port"));
    *port = pt > 0 && pt <= 65535 ? pt : 0;
    const char *host = json_string_value(json_object_get(ep, "ipv4Address"));
    const char *v6 = json_string_value(json_object_get(ep, "ipv6Address"));
    if (!host)
        host = json_string_value(json_object_get(svc, "fqdn"));
    if (!host && !v6)
        host = json_string_value(json_object_get(p, "fqdn"));
    if (!host && !v6)
        host = json_string_value(json_array_get(json_object_get(p, "ipv4Addresses"), 0));
    if (!host && !v6)
        v6 = json_string_value(json_array_get(json_object_get(p, "ipv6Addresses"), 0));
    if (!host && v6 && strlen(v6) < cap - 2) {
        snprintf(buf, cap, "[%s]", v6);
        host = buf;
    }
    return host;
}

/* The NFService named `name` (NULL: any) of nfServiceList, else of nfServices; the first
 * one when none has that name. */
static bool service_named(json_t *s, const char *name, json_t **first)
{
    const char *n = json_string_value(json_object_get(s, "serviceName"));
    if (!*first)
        *first = s;
    return !name || (n && strcmp(n, name) == 0);
}

static json_t *service_of(json_t *profile, const char *name)
{
    json_t *first = NULL, *s;
    const char *key;
    json_object_foreach(json_object_get(profile, "nfServiceList"), key, s)
        if (service_named(s, name, &first))
            return s;
    size_t i;
    json_array_foreach(json_object_get(profile, "nfServices"), i, s)
        if (service_named(s, name, &first))
            return s;
    return first;
}

int bsf_nf_profile_api_root(json_t *profile, const char *service_name, char *root, size_t cap,
                            char *authority, size_t acap)
{
    json_t *svc = service_of(profile, service_name);
    char v6[64];
    json_int_t port;
    const char *host = first_address(svc, profile, v6, sizeof v6, &port);
    if (!host || !host[0] || strlen(host) > 255)
        return -1;
    const char *scheme = json_string_value(json_object_get(svc, "scheme"));
    scheme = scheme && strcmp(scheme, "https") == 0 ? "https" : "http";
    if (!port)
        port = strcmp(scheme, "https") == 0 ? 443 : 80;
    const char *prefix = json_string_value(json_object_get(svc, "apiPrefix"));
    int a = snprintf(authority, acap, "%s:%d", host, (int)port);
    return a > 0 && (size_t)a < acap &&
                   bsf_api_root_build(scheme, host, (unsigned)port, prefix, root, cap) ==
                       BSF_API_ROOT_OK
               ? 0
               : -1;
}
