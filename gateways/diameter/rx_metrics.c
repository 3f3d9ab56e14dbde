/* Prometheus counters of the Rx gateway. */
#include "gateways/diameter/rx_metrics.h"

#include <stdio.h>
#include <stdlib.h>

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
    bsf_text_printf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (int i = 0; i < n; i++)
        bsf_text_printf(out, "%s{%s=\"%s\"} %llu\n", name, label, values[i],
                        (unsigned long long)get(&counters[i]));
}

static void write_requests(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    bsf_text_printf(out, "# HELP ocbsf_diam_request_inbound_total Rx requests received.\n"
                         "# TYPE ocbsf_diam_request_inbound_total counter\n");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        bsf_text_printf(out, "ocbsf_diam_request_inbound_total{msg_type=\"%s\"} %llu\n",
                        bsf_rx_kind_name(k), (unsigned long long)get(&m->inbound[k]));
    bsf_text_printf(out,
                    "# HELP ocbsf_diam_request_network_total Requests forwarded to the next hop "
                    "(retry=\"true\": a retry, retryReason its cause).\n"
                    "# TYPE ocbsf_diam_request_network_total counter\n");
    char code[16];
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++) {
        bsf_text_printf(out,
                        "ocbsf_diam_request_network_total{msg_type=\"%s\",retry=\"false\"} %llu\n",
                        bsf_rx_kind_name(k), (unsigned long long)get(&m->network[k]));
        for (size_t c = 0; c < BSF_RX_CODE_SLOTS; c++) {
            uint64_t v = get(&m->retries[k][c]);
            if (!v)
                continue;
            if (c == BSF_RX_RETRY_TIMEOUT)
                snprintf(code, sizeof code, "timeout");
            else
                code_label(c, code, sizeof code);
            bsf_text_printf(out,
                            "ocbsf_diam_request_network_total{msg_type=\"%s\",retry=\"true\","
                            "retry_reason=\"%s\"} %llu\n",
                            bsf_rx_kind_name(k), code, (unsigned long long)v);
        }
    }
}

/* A sample per non-zero Result-Code slot of one kind's `counters`, labelled msg_type,
 * result_code and then `more` (",name=\"value\"" pairs, or ""). */
static void write_codes(bsf_text_t *out, const char *name, bsf_rx_kind_t k, const char *more,
                        atomic_uint_least64_t *counters)
{
    char code[16];
    for (size_t c = 0; c < BSF_RX_CODE_SLOTS; c++) {
        uint64_t v = get(&counters[c]);
        if (!v)
            continue;
        code_label(c, code, sizeof code);
        bsf_text_printf(out, "%s{msg_type=\"%s\",result_code=\"%s\"%s} %llu\n", name,
                        bsf_rx_kind_name(k), code, more, (unsigned long long)v);
    }
}

static void write_answers(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    bsf_text_printf(out, "# HELP ocbsf_diam_response_network_total Answers received from the next "
                         "hop, by Result-Code or Experimental-Result-Code.\n"
                         "# TYPE ocbsf_diam_response_network_total counter\n");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        for (int r = 0; r < 2; r++)
            write_codes(out, "ocbsf_diam_response_network_total", k,
                        r ? ",retry=\"true\"" : ",retry=\"false\"", m->responses[k][r]);
    bsf_text_printf(out, "# HELP ocbsf_diam_response_local_total Answers the gateway made itself "
                         "(not found, realm, malformed, timeout, busy).\n"
                         "# TYPE ocbsf_diam_response_local_total counter\n");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        write_codes(out, "ocbsf_diam_response_local_total", k, "", m->local[k]);
    bsf_text_printf(out, "# HELP ocbsf_diam_timeout_total Forwarded requests whose answer timer "
                         "expired.\n# TYPE ocbsf_diam_timeout_total counter\n");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++)
        bsf_text_printf(out, "ocbsf_diam_timeout_total{msg_type=\"%s\"} %llu\n",
                        bsf_rx_kind_name(k), (unsigned long long)get(&m->timeouts[k]));
}

#define LATENCY "ocbsf_diam_service_overall_processing_time_seconds"

/* Seed 3.2's overall processing time, as a histogram per message type. */
static void write_latency(bsf_rx_metrics_t *m, bsf_text_t *out)
{
    bsf_text_printf(out, "# HELP " LATENCY " From a request's arrival to the answer sent back.\n"
                         "# TYPE " LATENCY " histogram\n");
    for (int k = 0; k < BSF_RX_KIND_COUNT; k++) {
        const char *kind = bsf_rx_kind_name(k);
        uint64_t cum = 0;
        for (int b = 0; b < BSF_RX_LATENCY_BUCKETS; b++) {
            cum += get(&m->latency[k][b]);
            bsf_text_printf(out, LATENCY "_bucket{msg_type=\"%s\",le=\"%g\"} %llu\n", kind,
                            latency_bounds[b], (unsigned long long)cum);
        }
        cum += get(&m->latency[k][BSF_RX_LATENCY_BUCKETS]);
        bsf_text_printf(out,
                        LATENCY "_bucket{msg_type=\"%s\",le=\"+Inf\"} %llu\n"
                        LATENCY "_sum{msg_type=\"%s\"} %.6f\n"
                        LATENCY "_count{msg_type=\"%s\"} %llu\n",
                        kind, (unsigned long long)cum, kind,
                        (double)get(&m->latency_sum_ns[k]) / 1e9, kind, (unsigned long long)cum);
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
    write_requests(m, out);
    write_answers(m, out);
    write_latency(m, out);
    bsf_text_printf(out,
                    "# HELP ocbsf_diam_realm_validation_failed_total AAR-I refused by a realm "
                    "rule (seed 3.12).\n# TYPE ocbsf_diam_realm_validation_failed_total counter\n"
                    "ocbsf_diam_realm_validation_failed_total{check=\"realm\"} %llu\n"
                    "ocbsf_diam_realm_validation_failed_total{check=\"binding_realm\"} %llu\n",
                    (unsigned long long)get(&m->realm_failed[0]),
                    (unsigned long long)get(&m->realm_failed[1]));
    write_labelled(out, "ocbsf_diam_binding_lookup_total", "Binding lookups of AAR-I.", "result",
                   lookups, m->lookups, 3);
    write_labelled(out, "ocbsf_diam_stale_binding_total",
                   "Bindings removed because the PCF answered an AAR with a stale code (seed "
                   "3.34).",
                   "result", stale, m->stale, BSF_RX_STALE_COUNT);
    bsf_text_printf(out, "# HELP ocbsf_ocnf_service_cookie_total AAR-I forwarded with an "
                         "OCNF-SERVICE-COOKIE AVP (seed 3.3).\n"
                         "# TYPE ocbsf_ocnf_service_cookie_total counter\n"
                         "ocbsf_ocnf_service_cookie_total %llu\n",
                    (unsigned long long)get(&m->cookies));
    write_labelled(out, "ocbsf_diam_sessions_total", "Rx session events.", "event", sess,
                   m->sessions, BSF_RX_SESSION_EV_COUNT);
    write_labelled(out, "ocbsf_diam_events_total",
                   "freeDiameter events and requests the gateway completed by its own deadline.",
                   "event", events, m->events, BSF_RX_EV_COUNT);
    bsf_text_printf(out,
                    "# HELP ocbsf_diam_pending_requests Forwarded requests waiting for an answer.\n"
                    "# TYPE ocbsf_diam_pending_requests gauge\nocbsf_diam_pending_requests %llu\n"
                    "# HELP ocbsf_diam_pending_requests_max Limit of pending requests.\n"
                    "# TYPE ocbsf_diam_pending_requests_max gauge\n"
                    "ocbsf_diam_pending_requests_max %llu\n"
                    "# HELP ocbsf_diam_sessions Rx sessions followed.\n"
                    "# TYPE ocbsf_diam_sessions gauge\nocbsf_diam_sessions %llu\n",
                    (unsigned long long)pending, (unsigned long long)pending_max,
                    (unsigned long long)sessions);
}
