/* The SCPs of the SBI client; see sbi_client_scp.h. */
#include "gateways/sbi/sbi_client_scp.h"

#include <stdio.h>
#include <string.h>

#include "common/metrics_text.h"
#include "common/text_list.h"

int bsf_scp_table_init(bsf_scp_table_t *t, const char *uris, unsigned temp_unavailable_ms,
                       unsigned health_failures, unsigned health_successes, char *err,
                       size_t err_cap)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    t->temp_unavailable_ms = temp_unavailable_ms;
    t->health_failures = health_failures ? health_failures : 1;
    t->health_successes = health_successes ? health_successes : 1;
    const char *cur = uris ? uris : "";
    char item[256], why[128];
    bool cut;
    while (bsf_text_list_next(&cur, item, sizeof item, &cut)) {
        if (t->n == BSF_SCP_MAX) {
            snprintf(err, err_cap, "scp.uris: at most %d SCPs", BSF_SCP_MAX);
            return -1;
        }
        bsf_scp_t *s = &t->scps[t->n];
        if (cut || bsf_sbi_uri_parse(item, strlen(item), &s->parsed, why, sizeof why)) {
            snprintf(err, err_cap, "scp.uris: '%s': %s", item, cut ? "too long" : why);
            return -1;
        }
        snprintf(s->uri, sizeof s->uri, "%s", item);
        t->n++;
    }
    return 0;
}

void bsf_scp_table_destroy(bsf_scp_table_t *t)
{
    pthread_mutex_destroy(&t->mu);
}

static bool available(const bsf_scp_t *s, int64_t now_ms)
{
    return !s->unhealthy && s->unavailable_until_ms <= now_ms;
}

bool bsf_scp_table_available(bsf_scp_table_t *t, int i, int64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    bool ok = i >= 0 && (size_t)i < t->n && available(&t->scps[i], now_ms);
    pthread_mutex_unlock(&t->mu);
    return ok;
}

int bsf_scp_table_pick(bsf_scp_table_t *t, int64_t now_ms, uint32_t tried)
{
    int first_untried = -1, pick = -1;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n && pick < 0; i++) {
        if (tried & (1u << i))
            continue;
        if (first_untried < 0)
            first_untried = (int)i;
        if (available(&t->scps[i], now_ms))
            pick = (int)i;
    }
    pthread_mutex_unlock(&t->mu);
    return pick >= 0 ? pick : first_untried;
}

void bsf_scp_table_mark(bsf_scp_table_t *t, int i, int64_t now_ms)
{
    if (i < 0 || (size_t)i >= t->n)
        return;
    pthread_mutex_lock(&t->mu);
    t->scps[i].unavailable_until_ms = now_ms + t->temp_unavailable_ms;
    t->scps[i].marked++;
    pthread_mutex_unlock(&t->mu);
}

void bsf_scp_table_fine(bsf_scp_table_t *t, int i)
{
    if (i < 0 || (size_t)i >= t->n)
        return;
    pthread_mutex_lock(&t->mu);
    t->scps[i].unavailable_until_ms = 0;
    pthread_mutex_unlock(&t->mu);
}

void bsf_scp_table_probe(bsf_scp_table_t *t, int i, bool ok)
{
    if (i < 0 || (size_t)i >= t->n)
        return;
    pthread_mutex_lock(&t->mu);
    bsf_scp_t *s = &t->scps[i];
    s->probes++;
    if (ok) {
        s->probe_failures = 0;
        if (++s->probe_successes >= t->health_successes)
            s->unhealthy = false;
    } else {
        s->probes_failed++;
        s->probe_successes = 0;
        if (++s->probe_failures >= t->health_failures)
            s->unhealthy = true;
    }
    pthread_mutex_unlock(&t->mu);
}

static const char *status_name(const bsf_scp_t *s, int64_t now_ms)
{
    if (s->unhealthy)
        return "UNHEALTHY";
    return s->unavailable_until_ms > now_ms ? "TEMPORARILY_UNAVAILABLE" : "AVAILABLE";
}

json_t *bsf_scp_table_status(bsf_scp_table_t *t, int64_t now_ms)
{
    json_t *a = json_array();
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n; i++) {
        const bsf_scp_t *s = &t->scps[i];
        json_array_append_new(
            a, json_pack("{s:s,s:i,s:s,s:I,s:I,s:I}", "uri", s->uri, "priority", (int)i,
                         "status", status_name(s, now_ms), "markedUnavailable",
                         (json_int_t)s->marked, "probes", (json_int_t)s->probes,
                         "probesFailed", (json_int_t)s->probes_failed));
    }
    pthread_mutex_unlock(&t->mu);
    return json_pack("{s:o}", "scps", a);
}

void bsf_scp_table_write_metrics(bsf_scp_table_t *t, int64_t now_ms, bsf_text_t *out)
{
    pthread_mutex_lock(&t->mu);
    if (t->n)
        bsf_metrics_family(out, "bsf_scp_available", "gauge", "1 when the SCP is available.");
    for (size_t i = 0; i < t->n; i++)
        bsf_metrics_u64_label(out, "bsf_scp_available", "scp", t->scps[i].uri,
                              available(&t->scps[i], now_ms));
    pthread_mutex_unlock(&t->mu);
}
