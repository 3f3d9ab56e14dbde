/* Prometheus counters of the Rx gateway. */
#include "gateways/diameter/rx_metrics.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/metrics_text.h"

#define RELAXED memory_order_relaxed

static const double latency_bounds[BSF_RX_LATENCY_BUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

bsf_rx_metrics_t *bsf_rx_metrics_new(void)
{
    return calloc(1, sizeof(bsf_rx_metrics_t)); /* zero is a valid atomic initial state */
}

uint64_t bsf_rx_metrics_messages(const bsf_rx_metrics_t *m)
{
    uint64_t n = 0;
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        n += atomic_load_explicit(&m->inbound[k], memory_order_relaxed) +
             atomic_load_explicit(&m->network[k], memory_order_relaxed);
    return n;
}

void bsf_rx_metrics_free(bsf_rx_metrics_t *m)
{
    free(m);
}

static size_t code_slot(uint32_t code)
{
    return code >= 1000 && code < 6000 ? code - 1000 : BSF_RX_CODE_SLOTS - 1;
}

static size_t kind_slot(bsf_rx_kind_t k)
{
    return k < BSF_RX_KIND_COUNT ? (size_t)k : BSF_RX_OTHER;
}

void bsf_rx_metrics_count_inbound(bsf_rx_metrics_t *m, bsf_rx_kind_t k)
{
    atomic_fetch_add_explicit(&m->inbound[kind_slot(k)], 1, RELAXED);
}

void bsf_rx_metrics_count_network(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint32_t retry_code)
{
    if (retry_code == 0)
        atomic_fetch_add_explicit(&m->network[kind_slot(k)], 1, RELAXED);
    else
        atomic_fetch_add_explicit(&m->retries[kind_slot(k)][retry_code == BSF_RX_RETRY_TIMEOUT
                                                                ? BSF_RX_RETRY_TIMEOUT
                                                                : code_slot(retry_code)],
                                  1, RELAXED);
}

void bsf_rx_metrics_count_response(bsf_rx_metrics_t *m, bsf_rx_kind_t k, bool retried,
                                   uint32_t code)
{
    atomic_fetch_add_explicit(&m->responses[kind_slot(k)][retried ? 1 : 0][code_slot(code)], 1,
                              RELAXED);
}

void bsf_rx_metrics_count_local(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint32_t code)
{
    atomic_fetch_add_explicit(&m->local[kind_slot(k)][code_slot(code)], 1, RELAXED);
}

void bsf_rx_metrics_count_timeout(bsf_rx_metrics_t *m, bsf_rx_kind_t k)
{
    atomic_fetch_add_explicit(&m->timeouts[kind_slot(k)], 1, RELAXED);
}

void bsf_rx_metrics_observe_latency(bsf_rx_metrics_t *m, bsf_rx_kind_t k, uint64_t ns)
{
    size_t b = 0;
    double s = (double)ns / 1e9;
    while (b < BSF_RX_LATENCY_BUCKETS && s > latency_bounds[b])
        b++;
    atomic_fetch_add_explicit(&m->latency[kind_slot(k)][b], 1, RELAXED);
    atomic_fetch_add_explicit(&m->latency_sum_ns[kind_slot(k)], ns, RELAXED);
}

void bsf_rx_metrics_count_realm_failed(bsf_rx_metrics_t *m, bsf_rx_realm_check_t c)
{
    atomic_fetch_add_explicit(&m->realm_failed[c == BSF_RX_REALM_CHECK_BINDING], 1, RELAXED);
}

void bsf_rx_metrics_count_lookup(bsf_rx_metrics_t *m, bsf_rx_lookup_result_t r)
{
    atomic_fetch_add_explicit(&m->lookups[r <= BSF_RX_LOOKUP_ERROR ? r : BSF_RX_LOOKUP_ERROR], 1,
                              RELAXED);
}

void bsf_rx_metrics_count_stale(bsf_rx_metrics_t *m, bsf_rx_stale_result_t r)
{
    if (r < BSF_RX_STALE_COUNT)
        atomic_fetch_add_explicit(&m->stale[r], 1, RELAXED);
}

void bsf_rx_metrics_count_session(bsf_rx_metrics_t *m, bsf_rx_session_event_t e, uint64_t n)
{
    if (e < BSF_RX_SESSION_EV_COUNT && n)
        atomic_fetch_add_explicit(&m->sessions[e], n, RELAXED);
}

void bsf_rx_metrics_count_event(bsf_rx_metrics_t *m, bsf_rx_event_t e)
{
    if (e < BSF_RX_EV_COUNT)
        atomic_fetch_add_explicit(&m->events[e], 1, RELAXED);
}

void bsf_rx_metrics_count_cookie(bsf_rx_metrics_t *m)
{
    atomic_fetch_add_explicit(&m->cookies, 1, RELAXED);
}

static uint64_t get(atomic_uint_least64_t *a)
{
    return atomic_load_explicit(a, RELAXED);
}

static void code_label(size_t slot, char *out, size_t cap)
{
    if (slot == BSF_RX_CODE_SLOTS - 1)
        snprintf(out, cap, "other");
    else
        snprintf(out, cap, "%zu", slot + 1000);
}

/* A counter family with one label: its HELP and TYPE lines, then a sample per label value. */
static void write_labelled(bsf_text_t *out, const char *name, const char *help, const char *label,
                           const char *const *values, atomic_uint_least64_t *counters, int n)
{
    bsf_metrics_family(out, name, "counter", help);
    for (int i = 0; i < n; i++)
        bsf_metrics_u64_label(out, name, label, values[i], get(&counters[i]));
}

/* A counter family with a sample per message type (label msg_type). */
static void write_by_kind(bsf_text_t *out, const char *name, const char *help,
                          atomic_uint_least64_t *counters)
{
    bsf_metrics_family(out, name, "counter", help);
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        bsf_metrics_u64_label(out, name, "msg_type", bsf_rx_kind_name(k), get(&counters[k]));
}

static void write_requests(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    write_by_kind(out, "ocbsf_diam_request_inbound_total", "Rx requests received.", m->inbound);
    bsf_metrics_family(out, "ocbsf_diam_request_network_total", "counter",
                       "Requests forwarded to the next hop (retry=\"true\": a retry, retryReason "
                       "its cause).");
    char code[16], labels[96];
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++) {
        snprintf(labels, sizeof labels, "msg_type=\"%s\",retry=\"false\"", bsf_rx_kind_name(k));
        bsf_metrics_u64(out, "ocbsf_diam_request_network_total", labels, get(&m->network[k]));
        for (size_t c = 0; c < BSF_RX_CODE_SLOTS; c++) {
            uint64_t v = get(&m->retries[k][c]);
            if (!v)
                continue;
            if (c == BSF_RX_RETRY_TIMEOUT)
                snprintf(code, sizeof code, "timeout");
            else
                code_label(c, code, sizeof code);
            snprintf(labels, sizeof labels, "msg_type=\"%s\",retry=\"true\",retry_reason=\"%s\"",
                     bsf_rx_kind_name(k), code);
            bsf_metrics_u64(out, "ocbsf_diam_request_network_total", labels, v);
        }
    }
}

/* A sample per non-zero Result-Code slot of one kind's `counters`, labelled msg_type,
 * result_code and then `more` (",name=\"value\"" pairs, or ""). */
static void write_codes(bsf_text_t *out, const char *name, bsf_rx_kind_t k, const char *more,
                        atomic_uint_least64_t *counters)
{
    char code[16], labels[96];
    for (size_t c = 0; c < BSF_RX_CODE_SLOTS; c++) {
        uint64_t v = get(&counters[c]);
        if (!v)
            continue;
        code_label(c, code, sizeof code);
        snprintf(labels, sizeof labels, "msg_type=\"%s\",result_code=\"%s\"%s",
                 bsf_rx_kind_name(k), code, more);
        bsf_metrics_u64(out, name, labels, v);
    }
}

static void write_answers(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    bsf_metrics_family(out, "ocbsf_diam_response_network_total", "counter",
                       "Answers received from the next hop, by Result-Code or "
                       "Experimental-Result-Code.");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        for (int r = 0; r < 2; r++)
            write_codes(out, "ocbsf_diam_response_network_total", k,
                        r ? ",retry=\"true\"" : ",retry=\"false\"", m->responses[k][r]);
    bsf_metrics_family(out, "ocbsf_diam_response_local_total", "counter",
                       "Answers the gateway made itself (not found, realm, malformed, timeout, "
                       "busy).");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        write_codes(out, "ocbsf_diam_response_local_total", k, "", m->local[k]);
    write_by_kind(out, "ocbsf_diam_timeout_total",
                  "Forwarded requests whose answer timer expired.", m->timeouts);
}

#define LATENCY "ocbsf_diam_service_overall_processing_time_seconds"

/* Seed 3.2's overall processing time, as a histogram per message type. */
static void write_latency(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    bsf_metrics_family(out, LATENCY, "histogram",
                       "From a request's arrival to the answer sent back.");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++) {
        uint64_t counts[BSF_RX_LATENCY_BUCKETS + 1], count = 0;
        for (int b = 0; b <= BSF_RX_LATENCY_BUCKETS; b++) {
            counts[b] = get(&m->latency[k][b]);
            count += counts[b];
        }
        char labels[48];
        snprintf(labels, sizeof labels, "msg_type=\"%s\"", bsf_rx_kind_name(k));
        bsf_metrics_histogram(out, &(bsf_metrics_histogram_t){
                                       .name = LATENCY, .labels = labels,
                                       .bounds = latency_bounds,
                                       .n_bounds = BSF_RX_LATENCY_BUCKETS, .counts = counts,
                                       .sum = (double)get(&m->latency_sum_ns[k]) / 1e9,
                                       .sum_decimals = 6, .count = count});
    }
}

void bsf_rx_metrics_write(bsf_rx_metrics_t *m, uint64_t pending, uint64_t pending_max,
                          uint64_t sessions, bsf_text_t *out)
{
    static const char *const lookups[] = {"found", "not_found", "error"};
    static const char *const stale[] = {"requested", "removed", "already_gone", "failed"};
    static const char *const sess[] = {"opened", "closed", "expired", "refused"};
    static const char *const events[] = {"parsing_error", "routing_error", "dropped", "failover",
                                         "connect_failed", "connected", "lost"};
    static const char *const checks[] = {"realm", "binding_realm"};
    write_requests(m, out);
    write_answers(m, out);
    write_latency(m, out);
    write_labelled(out, "ocbsf_diam_realm_validation_failed_total",
                   "AAR-I refused by a realm rule (seed 3.12).", "check", checks, m->realm_failed,
                   2);
    write_labelled(out, "ocbsf_diam_binding_lookup_total", "Binding lookups of AAR-I.", "result",
                   lookups, m->lookups, 3);
    write_labelled(out, "ocbsf_diam_stale_binding_total",
                   "Bindings removed because the PCF answered an AAR with a stale code (seed "
                   "3.34).",
                   "result", stale, m->stale, BSF_RX_STALE_COUNT);
    bsf_metrics_u64_family(out, "ocbsf_ocnf_service_cookie_total", "counter",
                           "AAR-I forwarded with an OCNF-SERVICE-COOKIE AVP (seed 3.3).",
                           get(&m->cookies));
    write_labelled(out, "ocbsf_diam_sessions_total", "Rx session events.", "event", sess,
                   m->sessions, BSF_RX_SESSION_EV_COUNT);
    write_labelled(out, "ocbsf_diam_events_total",
                   "freeDiameter events and requests the gateway completed by its own deadline.",
                   "event", events, m->events, BSF_RX_EV_COUNT);
    const bsf_metric_row_t rows[] = {
        {"ocbsf_diam_pending_requests", "gauge", "Forwarded requests waiting for an answer.",
         pending},
        {"ocbsf_diam_pending_requests_max", "gauge", "Limit of pending requests.", pending_max},
        {"ocbsf_diam_sessions", "gauge", "Rx sessions followed.", sessions},
    };
    BSF_METRICS_ROWS(out, rows);
}
