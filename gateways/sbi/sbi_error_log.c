/* Enhanced error details and the error log of the SBI (see sbi_error_log.h). */
#include "gateways/sbi/sbi_error_log.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/metrics_text.h"
#include "gateways/admission/admission_rules.h"

static struct {
    bsf_sbi_errors_config_t cfg;
    char fqdn[256];
    char sender[64];
    pthread_mutex_t mu; /* the bucket */
    bsf_adm_bucket_t bucket;
    atomic_uint_fast64_t out, logged, dropped;
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

void bsf_sbi_errors_install(const bsf_sbi_errors_config_t *cfg)
{
    g.cfg = *cfg;
    snprintf(g.fqdn, sizeof g.fqdn, "%s", cfg->fqdn ? cfg->fqdn : "");
    snprintf(g.sender, sizeof g.sender, "BSF-%s", cfg->nf_instance_id ? cfg->nf_instance_id : "");
    g.cfg.fqdn = g.fqdn;
    g.cfg.nf_instance_id = NULL;
    g.bucket = (bsf_adm_bucket_t){0};
}

bool bsf_sbi_errors_want_subscriber(void)
{
    return g.cfg.log && g.cfg.log_ue_id;
}

bool bsf_sbi_errors_enhanced(void)
{
    return g.cfg.enhanced_detail;
}

/* `name=value` of the query (the value as sent: SUPI and GPSI need no decoding). */
static bool query_value(const char *path, size_t path_len, const char *name, char *out,
                        size_t cap)
{
    const char *q = memchr(path, '?', path_len), *end = path + path_len;
    size_t n = strlen(name);
    for (const char *p = q ? q + 1 : end; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        if ((size_t)(stop - p) > n && memcmp(p, name, n) == 0 && p[n] == '=') {
            snprintf(out, cap, "%.*s", (int)(stop - p - (ptrdiff_t)n - 1), p + n + 1);
            return true;
        }
        p = stop + 1;
    }
    return false;
}

void bsf_sbi_errors_subscriber(const bsf_h2_request_t *r, char *out, size_t cap)
{
    out[0] = '\0';
    if (r->path && (query_value(r->path, r->path_len, "supi", out, cap) ||
                    query_value(r->path, r->path_len, "gpsi", out, cap)))
        return;
    if (!r->body || !r->body_len)
        return;
    json_t *doc = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES, NULL);
    const char *id = json_string_value(json_object_get(doc, "supi"));
    if (!id)
        id = json_string_value(json_object_get(doc, "gpsi"));
    if (id)
        snprintf(out, cap, "%s", id);
    json_decref(doc);
}

/* The category of an application error id (our own table, seed §3.11's suggestion). */
static const char *category(bsf_cause_t c)
{
    switch (c) {
    case BSF_CAUSE_NONE:
        return "CONFIG";
    case BSF_CAUSE_MULTIPLE_BINDING_INFO_FOUND:
    case BSF_CAUSE_EXISTING_BINDING_INFO_FOUND:
    case BSF_CAUSE_MODIFICATION_NOT_ALLOWED:
        return "BINDING";
    case BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND:
    case BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND:
    case BSF_CAUSE_METHOD_NOT_ALLOWED:
        return "RESOURCE";
    case BSF_CAUSE_UNAUTHORIZED:
    case BSF_CAUSE_INSUFFICIENT_SCOPE:
        return "AUTH";
    case BSF_CAUSE_NF_CONGESTION:
    case BSF_CAUSE_NF_CONGESTION_RISK:
    case BSF_CAUSE_TIMED_OUT_REQUEST:
        return "OVERLOAD";
    case BSF_CAUSE_SYSTEM_FAILURE:
    case BSF_CAUSE_INSUFFICIENT_STORAGE:
        return "INTERNAL";
    default:
        return "REQVLD"; /* request validation: format, parameters, lengths, media type */
    }
}

void bsf_sbi_errors_detail(bsf_cause_t cause, int status, const char *detail, char *out,
                           size_t cap)
{
    if (!g.cfg.enhanced_detail) {
        snprintf(out, cap, "%s", detail);
        return;
    }
    char id[64], prefix[96];
    snprintf(id, sizeof id, " :EC-OBSF-BSF_MGMT-%s-%03d-%05d", category(cause), status,
             (int)cause);
    snprintf(prefix, sizeof prefix, "%.70s:BSF_MGMT:", g.fqdn);
    size_t room = cap > strlen(id) + strlen(prefix) ? cap - 1 - strlen(id) - strlen(prefix) : 0;
    snprintf(out, cap, "%s%.*s%s", prefix, (int)room, detail, id);
}

/* The burst filter: a token bucket of `rate` lines per second holding at most `burst`. */
static bool let_through(void)
{
    uint32_t burst = g.cfg.burst ? g.cfg.burst : g.cfg.rate;
    pthread_mutex_lock(&g.mu);
    bool ok = bsf_adm_bucket_take(&g.bucket, g.cfg.rate, burst, bsf_clock_mono_ns());
    pthread_mutex_unlock(&g.mu);
    return ok;
}

void bsf_sbi_errors_answered(int status, const char *title, const char *detail,
                             const char *cause, const char *subscriber)
{
    if (g.cfg.enhanced_detail)
        atomic_fetch_add_explicit(&g.out, 1, memory_order_relaxed);
    if (!g.cfg.log)
        return;
    if (!let_through()) {
        atomic_fetch_add_explicit(&g.dropped, 1, memory_order_relaxed);
        return;
    }
    char st[8];
    snprintf(st, sizeof st, "%d", status);
    json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:s}", "errorStatus", st, "errorTitle",
                             title ? title : "", "errorDetails", detail ? detail : "",
                             "errorCause", cause ? cause : "", "sender", g.sender);
    if (line && g.cfg.log_ue_id && subscriber && subscriber[0])
        json_object_set_new(line, "subscriberId", json_string(subscriber));
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (text) {
        BSF_WARN("sbi", "error response %s", text);
        atomic_fetch_add_explicit(&g.logged, 1, memory_order_relaxed);
    }
    free(text);
    json_decref(line);
}

void bsf_sbi_errors_write_metrics(void *ctx, bsf_text_t *out)
{
    (void)ctx;
    bsf_metrics_u64_family(out, "error_handler_out_total", "counter",
                           "SBI error answers sent with the enhanced detail (seed 3.11).",
                           atomic_load(&g.out));
    static const char *const results[] = {"logged", "dropped"};
    const uint64_t logged[] = {atomic_load(&g.logged), atomic_load(&g.dropped)};
    BSF_METRICS_LABELLED_FAMILY(out, "ocbsf_sbi_error_log_total", "counter",
                                "SBI error answers logged, or dropped by the burst filter (seed "
                                "3.9).",
                                "result", results, logged);
}
