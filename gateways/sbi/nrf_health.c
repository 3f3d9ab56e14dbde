/* The shared view of the NRFs' health; see nrf_health.h. */
#include "gateways/sbi/nrf_health.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "common/text_list.h"
#include "gateways/sbi/status_list.h"

typedef struct {
    char uri[256];                /* apiRoot, no trailing '/' */
    int64_t unhealthy_until_ms;   /* monotonic; 0: healthy */
    int64_t last_failed_ms;       /* monotonic; 0: never */
    unsigned successive_failures, successive_successes;
} peer_t;

struct bsf_nrf_health {
    peer_t peers[BSF_NRF_HEALTH_MAX];
    size_t n;
    int64_t unhealthy_ms;
    unsigned primary_retries, alternate_retries;
    uint8_t failure[BSF_STATUS_LIST_SIZE]; /* 1: a status that is a failure of the NRF */
    pthread_mutex_t mu;           /* the peers' health fields */
};

static int64_t mono_ms(void)
{
    return (int64_t)(bsf_clock_mono_ns() / 1000000u);
}

bsf_nrf_health_t *bsf_nrf_health_create(const bsf_nrf_health_config_t *cfg, char *err,
                                        size_t err_cap)
{
    bsf_nrf_health_t *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    const char *codes = cfg->failure_codes;
    if (bsf_status_list_parse(codes && codes[0] ? codes : "429,500,502,503,504", h->failure)) {
        snprintf(err, err_cap, "nrf.failure_codes: not a list of codes 300..599");
        free(h);
        return NULL;
    }
    const char *cur = cfg->uris ? cfg->uris : "";
    char item[256];
    while (h->n < BSF_NRF_HEALTH_MAX && bsf_text_list_next(&cur, item, sizeof item, NULL)) {
        size_t len = strlen(item);
        while (len && item[len - 1] == '/')
            item[--len] = '\0';
        if (len)
            snprintf(h->peers[h->n++].uri, sizeof h->peers[0].uri, "%s", item);
    }
    h->unhealthy_ms = cfg->unhealthy_ms ? cfg->unhealthy_ms : 30000;
    h->primary_retries = cfg->primary_retries;
    h->alternate_retries = cfg->alternate_retries;
    pthread_mutex_init(&h->mu, NULL);
    return h;
}

void bsf_nrf_health_free(bsf_nrf_health_t *h)
{
    if (!h)
        return;
    pthread_mutex_destroy(&h->mu);
    free(h);
}

size_t bsf_nrf_health_count(const bsf_nrf_health_t *h)
{
    return h ? h->n : 0;
}

const char *bsf_nrf_health_uri(const bsf_nrf_health_t *h, int i)
{
    return h && i >= 0 && (size_t)i < h->n ? h->peers[i].uri : NULL;
}

static bool healthy_locked(const bsf_nrf_health_t *h, size_t i, int64_t now)
{
    return h->peers[i].unhealthy_until_ms <= now;
}

int bsf_nrf_health_pick(bsf_nrf_health_t *h, uint32_t tried)
{
    if (!h)
        return -1;
    int64_t now = mono_ms();
    int first = -1, oldest = -1;
    bool any_healthy = false;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->n; i++) {
        bool ok = healthy_locked(h, i, now);
        any_healthy |= ok;
        if (tried & (1u << i))
            continue;
        if (ok && first < 0)
            first = (int)i;
        if (oldest < 0 || h->peers[i].last_failed_ms < h->peers[oldest].last_failed_ms)
            oldest = (int)i;
    }
    pthread_mutex_unlock(&h->mu);
    if (first >= 0)
        return first;
    return any_healthy ? -1 : oldest; /* all unhealthy: the least recently failed */
}

int bsf_nrf_health_first_healthy(bsf_nrf_health_t *h)
{
    if (!h)
        return -1;
    int64_t now = mono_ms();
    int out = -1;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->n && out < 0; i++)
        if (healthy_locked(h, i, now))
            out = (int)i;
    pthread_mutex_unlock(&h->mu);
    return out;
}

bool bsf_nrf_health_healthy(bsf_nrf_health_t *h, int i)
{
    if (!h || i < 0 || (size_t)i >= h->n)
        return false;
    int64_t now = mono_ms();
    pthread_mutex_lock(&h->mu);
    bool ok = healthy_locked(h, (size_t)i, now);
    pthread_mutex_unlock(&h->mu);
    return ok;
}

bool bsf_nrf_health_may_try(const bsf_nrf_health_t *h, unsigned n_tried)
{
    return n_tried == 0 || n_tried <= h->alternate_retries;
}

void bsf_nrf_health_retry_profile(const bsf_nrf_health_t *h, int i, unsigned timeout_ms,
                                  bsf_sbi_retry_profile_t *out)
{
    *out = bsf_sbi_retry_default;
    out->max_retries = i == 0 ? h->primary_retries : 0;
    /* room within the deadline for the retries and one SCP reselection after a timeout */
    out->attempt_timeout_ms = timeout_ms / (out->max_retries + 2);
    out->honour_retry_after = false;
    out->stop_on_retry_after = true;
}

bool bsf_nrf_health_is_failure(const bsf_nrf_health_t *h, const bsf_sbi_response_t *rsp)
{
    if (rsp->from_scp)
        return false; /* the SCP's own error: the NRF may be fine */
    if (rsp->result != BSF_SBI_OK)
        return rsp->result != BSF_SBI_ERR_STOPPED;
    int st = rsp->status;
    return (st >= 300 && st < 600 && h->failure[st]) ||
           bsf_sbi_response_header(rsp, "retry-after") != NULL;
}

void bsf_nrf_health_failed(bsf_nrf_health_t *h, int i, int64_t for_ms)
{
    if (!h || i < 0 || (size_t)i >= h->n)
        return;
    int64_t now = mono_ms();
    pthread_mutex_lock(&h->mu);
    peer_t *p = &h->peers[i];
    p->unhealthy_until_ms = now + (for_ms > 0 ? for_ms : h->unhealthy_ms);
    p->last_failed_ms = now;
    p->successive_failures++;
    p->successive_successes = 0;
    pthread_mutex_unlock(&h->mu);
}

void bsf_nrf_health_succeeded(bsf_nrf_health_t *h, int i)
{
    if (!h || i < 0 || (size_t)i >= h->n)
        return;
    pthread_mutex_lock(&h->mu);
    peer_t *p = &h->peers[i];
    p->unhealthy_until_ms = 0;
    p->successive_successes++;
    p->successive_failures = 0;
    pthread_mutex_unlock(&h->mu);
}

bool bsf_nrf_health_report(bsf_nrf_health_t *h, int i, const bsf_sbi_response_t *rsp)
{
    if (!h || (rsp->from_scp && rsp->result == BSF_SBI_OK) || rsp->result == BSF_SBI_ERR_STOPPED)
        return false;
    if (!bsf_nrf_health_is_failure(h, rsp)) {
        if (!rsp->from_scp)
            bsf_nrf_health_succeeded(h, i);
        return false;
    }
    int64_t ra = bsf_sbi_retry_after_ms(bsf_sbi_response_header(rsp, "retry-after"),
                                        (int64_t)bsf_clock_wall_ms());
    bsf_nrf_health_failed(h, i, ra > 0 ? ra : 0); /* the NRF said how long */
    return true;
}

json_t *bsf_nrf_health_json(bsf_nrf_health_t *h)
{
    json_t *out = json_array();
    if (!h || !out)
        return out;
    int64_t now = mono_ms();
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->n; i++) {
        const peer_t *p = &h->peers[i];
        int64_t left = p->unhealthy_until_ms - now;
        json_array_append_new(
            out, json_pack("{s:s,s:i,s:s,s:i,s:i,s:I}", "uri", p->uri, "priority", (int)i,
                           "health", healthy_locked(h, i, now) ? "HEALTHY" : "UNHEALTHY",
                           "successiveFailures", (int)p->successive_failures,
                           "successiveSuccesses", (int)p->successive_successes,
                           "unhealthyForMs", (json_int_t)(left > 0 ? left : 0)));
    }
    pthread_mutex_unlock(&h->mu);
    return out;
}

void bsf_nrf_health_write_metrics(bsf_nrf_health_t *h, bsf_text_t *out)
{
    if (!h)
        return;
    int64_t now = mono_ms();
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->n; i++)
        bsf_metrics_u64_label(out, "bsf_nrf_operative_status", "nrf", h->peers[i].uri,
                              healthy_locked(h, i, now));
    pthread_mutex_unlock(&h->mu);
}
