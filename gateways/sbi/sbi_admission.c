/* Admission control of the SBI server (see sbi_admission.h). */
#include "gateways/sbi/sbi_admission.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "gateways/admission/message_profile.h"
#include "gateways/admission/priority_metrics.h"
#include "gateways/sbi/sbi_oci.h"

#define CONSUMER_SLOTS 1024 /* consumers tracked at once; a newcomer takes the oldest's slot */
#define CONSUMER_KEY_MAX 64
#define CODE_SLOTS 24 /* distinct answer statuses counted (taken as first seen) */

typedef struct {
    char key[CONSUMER_KEY_MAX];
    bsf_adm_bucket_t bucket;
} consumer_t;

struct bsf_sbi_admission {
    bsf_sbi_admission_config_t cfg;
    char instance_id[64];
    char server[80];
    char retry_after[16];
    bsf_h2_header_t discard_headers[1], limited_headers[1]; /* prepared with the bodies */
    char body[BSF_ADM_CONGESTED + 1][256]; /* the discard answer in each state */
    size_t body_len[BSF_ADM_CONGESTED + 1];
    char limited[256]; /* the rate limit answer */
    size_t limited_len;
    pthread_mutex_t mu; /* the buckets */
    bsf_adm_bucket_t routes[BSF_ADM_OP_COUNT];
    consumer_t *consumers;
    atomic_uint_fast64_t limited_total[BSF_ADM_OP_COUNT];
    /* seed §3.1's metric: [received priority, 32 = none][evaluated][operation] */
    atomic_uint_fast64_t by_priority[BSF_ADM_PRIORITY_MAX + 2][BSF_ADM_PRIORITY_MAX + 1]
                                    [BSF_ADM_OP_COUNT];
    atomic_uint_fast64_t conn_refused[BSF_ADM_CONGESTED + 1], conn_limited[BSF_ADM_CONGESTED + 1];
    /* seed §3.1's answers: [answer priority, 32 = none][operation][status slot] */
    atomic_int codes[CODE_SLOTS]; /* the status of each slot; 0: free */
    atomic_uint_fast64_t answers[BSF_ADM_PRIORITY_MAX + 2][BSF_ADM_OP_COUNT][CODE_SLOTS];
};

static bool cause_ok(const char *c)
{
    for (; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

static size_t problem(char *out, size_t cap, unsigned status, const char *title,
                      const char *detail, const char *cause)
{
    int n = snprintf(out, cap, "{\"title\":\"%s\",\"status\":%u,\"detail\":\"%s\"%s%s%s}", title,
                     status, detail, cause[0] ? ",\"cause\":\"" : "", cause, cause[0] ? "\"" : "");
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

bsf_sbi_admission_t *bsf_sbi_admission_new(const bsf_sbi_admission_config_t *cfg)
{
    const char *cause = cfg->cause ? cfg->cause : "";
    if (!cause_ok(cause) || strlen(cause) > 64)
        return NULL;
    bsf_sbi_admission_t *a = calloc(1, sizeof *a);
    if (!a || !(a->consumers = calloc(CONSUMER_SLOTS, sizeof *a->consumers))) {
        free(a);
        return NULL;
    }
    a->cfg = *cfg;
    snprintf(a->instance_id, sizeof a->instance_id, "%s",
             cfg->nf_instance_id ? cfg->nf_instance_id : "");
    a->cfg.nf_instance_id = a->instance_id;
    a->cfg.cause = NULL;
    /* Seed §3.26.1: `<NF type>-<NF instance id>`, only when the id is known. */
    if (cfg->server_header && a->instance_id[0])
        snprintf(a->server, sizeof a->server, "BSF-%s", a->instance_id);
    snprintf(a->retry_after, sizeof a->retry_after, "%u", cfg->retry_after_s);
    a->discard_headers[0] = (bsf_h2_header_t){"retry-after", a->retry_after};
    a->limited_headers[0] = (bsf_h2_header_t){"retry-after", "1"};
    for (int s = BSF_ADM_DOC; s <= BSF_ADM_CONGESTED; s++) {
        char detail[64];
        snprintf(detail, sizeof detail, "the BSF is in congestion state %s",
                 bsf_adm_state_name((bsf_adm_state_t)s));
        a->body_len[s] =
            problem(a->body[s], sizeof a->body[s], cfg->status, "NF congestion", detail, cause);
    }
    a->limited_len = problem(a->limited, sizeof a->limited, 429, "Too many requests",
                             "the consumer or the operation exceeds its rate limit",
                             "NF_CONGESTION_RISK");
    pthread_mutex_init(&a->mu, NULL);
    return a;
}

void bsf_sbi_admission_free(bsf_sbi_admission_t *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->mu);
    free(a->consumers);
    free(a);
}

static const char *header(const bsf_h2_request_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

/* The consumer (seed §3.28): the NF instance of a TS 29.500 User-Agent ("PCF-<id> ..."),
 * else the User-Agent, else the peer's address. */
static void consumer_key(bsf_h2_stream_t *s, const bsf_h2_request_t *r, char *out, size_t cap)
{
    const char *ua = header(r, "user-agent");
    if (ua && ua[0]) {
        size_t n = strcspn(ua, " ");
        snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), ua);
        return;
    }
    bsf_h2_stream_info_t info;
    bsf_h2_stream_info(s, &info);
    const char *colon = strrchr(info.peer, ':'); /* the address without the port */
    size_t n = colon ? (size_t)(colon - info.peer) : strlen(info.peer);
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), info.peer);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Seed §3.28: requests over a rate whose priority is above the cut-off are refused. */
static bool within_rates(bsf_sbi_admission_t *a, bsf_h2_stream_t *s, const bsf_h2_request_t *r,
                         bsf_adm_op_t op, uint32_t priority)
{
    const bsf_sbi_admission_config_t *c = &a->cfg;
    if ((!c->consumer_rate && !c->route_rate[op]) || priority <= c->rate_priority_cutoff)
        return true;
    char key[CONSUMER_KEY_MAX] = "";
    if (c->consumer_rate)
        consumer_key(s, r, key, sizeof key);
    uint64_t now = r->received_ns ? r->received_ns : bsf_clock_mono_ns();
    bool ok = true;
    pthread_mutex_lock(&a->mu);
    if (c->route_rate[op])
        ok = bsf_adm_bucket_take(&a->routes[op], c->route_rate[op], c->route_rate[op], now);
    if (ok && c->consumer_rate) {
        consumer_t *slot = &a->consumers[fnv1a(key) % CONSUMER_SLOTS];
        if (strcmp(slot->key, key) != 0) { /* a new consumer (or a collision): a full bucket */
            snprintf(slot->key, sizeof slot->key, "%s", key);
            slot->bucket = (bsf_adm_bucket_t){0};
        }
        ok = bsf_adm_bucket_take(&slot->bucket, c->consumer_rate, c->burst, now);
    }
    pthread_mutex_unlock(&a->mu);
    if (!ok)
        atomic_fetch_add_explicit(&a->limited_total[op], 1, memory_order_relaxed);
    return ok;
}

bool bsf_sbi_admission_check(bsf_sbi_admission_t *a, bsf_h2_stream_t *s,
                             const bsf_h2_request_t *r)
{
    bsf_adm_op_t op = bsf_adm_op_of(r->method);
    int received = bsf_adm_priority_parse(header(r, "3gpp-sbi-message-priority"));
    /* seed §3.1: the profile's rule sets the request's priority and its answer's */
    const bsf_mp_rule_t *rule =
        bsf_message_profile_match(bsf_message_profile_installed(), BSF_MP_NBSF_MANAGEMENT, (int)op);
    int evaluated = rule ? bsf_mp_request_priority(rule, received) : received;
    if (rule)
        bsf_h2_stream_set_answer_priority(s, bsf_mp_response_priority(rule, received));
    bsf_admission_t *adm = a->cfg.adm;
    if (!adm)
        return true;
    uint32_t priority = evaluated >= 0 ? (uint32_t)evaluated
                                       : bsf_admission_sbi_priority(adm, r->method, NULL);
    bsf_h2_stream_set_priority(s, priority);
    atomic_fetch_add_explicit(&a->by_priority[received >= 0 ? received : BSF_ADM_PRIORITY_MAX + 1]
                                             [priority > BSF_ADM_PRIORITY_MAX ? BSF_ADM_PRIORITY_MAX
                                                                              : priority][op],
                              1, memory_order_relaxed);
    bsf_adm_state_t state = bsf_admission_state(adm);
    if (!bsf_admission_sbi_admit(adm, priority)) {
        if (state == BSF_ADM_NORMAL) /* it changed in between */
            state = BSF_ADM_DOC;
        bool head = strcmp(r->method, "HEAD") == 0; /* a HEAD answer never has content */
        /* prepared at start: nothing is rendered or copied per discarded request */
        bsf_h2_respond_static(s, (int)a->cfg.status, "application/problem+json",
                              a->discard_headers, a->cfg.retry_after_s ? 1 : 0, a->body[state],
                              head ? 0 : a->body_len[state]);
        return false;
    }
    if (!within_rates(a, s, r, op, priority)) {
        bsf_h2_respond_static(s, 429, "application/problem+json", a->limited_headers, 1,
                              a->limited, a->limited_len);
        return false;
    }
    return true;
}

void bsf_sbi_admission_answered(bsf_sbi_admission_t *a, const char *method, int status,
                                int answer_priority)
{
    int slot = bsf_mp_code_slot(a->codes, CODE_SLOTS, status);
    if (slot < 0)
        return;
    int p = answer_priority >= 0 && answer_priority <= BSF_ADM_PRIORITY_MAX
                ? answer_priority
                : BSF_ADM_PRIORITY_MAX + 1;
    bsf_adm_op_t op = method ? bsf_adm_op_of(method) : BSF_ADM_OP_OTHER;
    atomic_fetch_add_explicit(&a->answers[p][op][slot], 1, memory_order_relaxed);
}

bool bsf_sbi_admission_connection(bsf_sbi_admission_t *a, uint32_t *max_streams)
{
    if (!a->cfg.adm)
        return true;
    bsf_adm_state_t state = bsf_admission_state(a->cfg.adm);
    if (state == BSF_ADM_NORMAL)
        return true;
    if (state >= a->cfg.connection_refuse_state) {
        atomic_fetch_add_explicit(&a->conn_refused[state], 1, memory_order_relaxed);
        return false;
    }
    uint32_t cap = a->cfg.connection_max_streams;
    if (cap && cap < *max_streams) {
        *max_streams = cap;
        atomic_fetch_add_explicit(&a->conn_limited[state], 1, memory_order_relaxed);
    }
    return true;
}

/* Per-thread copies of the OCI and LCI values: rewritten only when the controller's change. */
typedef struct {
    uint64_t key;
    char text[BSF_SBI_OCI_MAX];
} cached_t;

size_t bsf_sbi_admission_headers(bsf_sbi_admission_t *a, bsf_h2_header_t *out, size_t cap)
{
    static _Thread_local cached_t oci, lci;
    size_t n = 0;
    if (a->server[0] && n < cap)
        out[n++] = (bsf_h2_header_t){"server", a->server};
    bsf_admission_t *adm = a->cfg.adm;
    if (!adm || !a->instance_id[0])
        return n;
    unsigned level, metric;
    uint64_t ts;
    uint32_t validity;
    if (n < cap && bsf_admission_oci(adm, &level, &metric, &ts, &validity)) {
        uint64_t key = ts << 8 | metric;
        if (key != oci.key &&
            bsf_sbi_oci_format(ts, validity, metric, a->instance_id, oci.text, sizeof oci.text))
            oci.key = key;
        if (oci.key == key)
            out[n++] = (bsf_h2_header_t){"3gpp-sbi-oci", oci.text};
    }
    if (a->cfg.lci && n < cap && bsf_admission_lci(adm, &metric, &ts)) {
        uint64_t key = ts << 8 | metric;
        if (key != lci.key &&
            bsf_sbi_lci_format(ts, metric, a->instance_id, lci.text, sizeof lci.text))
            lci.key = key;
        if (lci.key == key)
            out[n++] = (bsf_h2_header_t){"3gpp-sbi-lci", lci.text};
    }
    return n;
}

static const char *const types[BSF_ADM_OP_COUNT] = {"Discovery", "Register", "Deregister",
                                                     "Update", "Other"};

/* Seed §3.1: direction out; rcvd_priority is the answer's priority before the profile (the
 * BSF's services set none: NA, as in the seed's log), eval_priority the one it carries.
 * Then direction in: the answers the SBI client got (priority_metrics.h). */
static void write_answers(const bsf_sbi_admission_t *a, bsf_text_t *out)
{
    bsf_metrics_family(out, "ocbsf_http_message_priority_response_count_total", "counter",
                       "SBI answers by the 3gpp-Sbi-Message-Priority they carry (seed 3.1; NA: "
                       "none), operation and status (direction out: the BSF's, in: its "
                       "producers'), counted once seen.");
    for (int p = 0; p <= BSF_ADM_PRIORITY_MAX + 1; p++)
        for (int op = 0; op < BSF_ADM_OP_COUNT; op++)
            for (int k = 0; k < CODE_SLOTS; k++) {
                unsigned long long v = atomic_load(&a->answers[p][op][k]);
                char eval[4];
                if (v && bsf_mp_priority_label(p, eval))
                    bsf_mp_metrics_sample(out, "ocbsf_http_message_priority_response_count_total",
                                          &(bsf_mp_series_t){"out", "NA", eval, "Nbsf_Management",
                                                             types[op], atomic_load(&a->codes[k])},
                                          v);
            }
    bsf_mp_metrics_write_answers(out); /* direction in: the SBI client's answers */
}

void bsf_sbi_admission_write_metrics(const bsf_sbi_admission_t *a, bsf_text_t *out)
{
    bsf_metrics_family(out, "ocbsf_sbi_ratelimit_reject_total", "counter",
                       "SBI requests refused by a rate limit, by operation.");
    for (int op = 0; op < BSF_ADM_OP_COUNT; op++)
        bsf_metrics_u64_label(out, "ocbsf_sbi_ratelimit_reject_total", "route",
                              bsf_adm_op_name((bsf_adm_op_t)op),
                              atomic_load(&a->limited_total[op]));
    static const char *const conn_metrics[2][2] = {
        {"ocbsf_sbi_connection_reject_total", "SBI connections closed at accept by the "
                                              "congestion state (seed 3.29)."},
        {"ocbsf_sbi_connection_limited_total", "SBI connections opened with a lower stream "
                                               "limit by the congestion state."}};
    for (int k = 0; k < 2; k++) {
        bsf_metrics_family(out, conn_metrics[k][0], "counter", conn_metrics[k][1]);
        for (int s = BSF_ADM_DOC; s <= BSF_ADM_CONGESTED; s++)
            bsf_metrics_u64_label(out, conn_metrics[k][0], "state",
                                  bsf_adm_state_name((bsf_adm_state_t)s),
                                  atomic_load(k ? &a->conn_limited[s] : &a->conn_refused[s]));
    }
    bsf_metrics_family(out, "ocbsf_http_message_priority_request_count_total", "counter",
                       "SBI requests by received and evaluated priority (seed 3.1; NA: no valid "
                       "header; direction in: to the BSF, out: its own), counted once seen.");
    for (int rc = 0; rc <= BSF_ADM_PRIORITY_MAX + 1; rc++)
        for (int ev = 0; ev <= BSF_ADM_PRIORITY_MAX; ev++)
            for (int op = 0; op < BSF_ADM_OP_COUNT; op++) {
                unsigned long long v = atomic_load(&a->by_priority[rc][ev][op]);
                char rcvd[4], eval[12];
                snprintf(eval, sizeof eval, "%d", ev);
                if (v && bsf_mp_priority_label(rc, rcvd))
                    bsf_mp_metrics_sample(out, "ocbsf_http_message_priority_request_count_total",
                                          &(bsf_mp_series_t){"in", rcvd, eval, "Nbsf_Management",
                                                             types[op], -1},
                                          v);
            }
    bsf_mp_metrics_write_requests(out); /* direction out: the SBI client's requests */
    write_answers(a, out);
}
