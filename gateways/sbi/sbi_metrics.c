#include "gateways/sbi/sbi_metrics.h"

static const int status_slots[BSF_SBI_STATUS_SLOTS] = {200, 201, 204, 400, 403, 404, 405, 411,
                                                       413, 414, 415, 431, 500, 503, 504,
                                                       507, 0};
static const double latency_bounds[BSF_SBI_LATENCY_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0};

const char *bsf_sbi_op_name(bsf_sbi_op_t op)
{
    static const char *const names[BSF_SBI_OP_COUNT] = {"register", "discovery", "update",
                                                        "deregister", "other"};
    return (unsigned)op < BSF_SBI_OP_COUNT ? names[op] : "other";
}

int bsf_sbi_status_of_slot(unsigned slot)
{
    return slot < BSF_SBI_STATUS_SLOTS ? status_slots[slot] : 0;
}

double bsf_sbi_latency_bound(unsigned bucket)
{
    return bucket < BSF_SBI_LATENCY_BUCKETS ? latency_bounds[bucket] : 0;
}

uint64_t bsf_sbi_metrics_answers(const bsf_sbi_metrics_t *blocks, unsigned workers)
{
    uint64_t n = 0;
    for (unsigned w = 0; w < workers; w++)
        for (int op = 0; op < BSF_SBI_OP_COUNT; op++)
            for (int slot = 0; slot < BSF_SBI_STATUS_SLOTS; slot++)
                n += atomic_load_explicit(&blocks[w].responses[op][slot], memory_order_relaxed);
    return n;
}

void bsf_sbi_metrics_record(bsf_sbi_metrics_t *m, bsf_sbi_op_t op, int status, uint64_t ns)
{
    unsigned slot = BSF_SBI_STATUS_SLOTS - 1;
    for (unsigned i = 0; i < BSF_SBI_STATUS_SLOTS - 1; i++)
        if (status_slots[i] == status) {
            slot = i;
            break;
        }
    unsigned bucket = BSF_SBI_LATENCY_BUCKETS - 1;
    double s = (double)ns / 1e9;
    for (unsigned i = 0; i < BSF_SBI_LATENCY_BUCKETS - 1; i++)
        if (s <= latency_bounds[i]) {
            bucket = i;
            break;
        }
    atomic_fetch_add_explicit(&m->responses[op][slot], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->latency[op][bucket], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->latency_sum_ns[op], ns, memory_order_relaxed);
}

void bsf_sbi_metrics_write(const bsf_sbi_metrics_t *blocks, unsigned workers, bsf_text_t *t)
{
    bsf_text_printf(t, "# HELP bsf_sbi_responses_total SBI responses by operation and status.\n"
                   "# TYPE bsf_sbi_responses_total counter\n");
    for (int op = 0; op < BSF_SBI_OP_COUNT; op++)
        for (unsigned slot = 0; slot < BSF_SBI_STATUS_SLOTS; slot++) {
            uint64_t sum = 0;
            for (unsigned w = 0; w < workers; w++)
                sum += atomic_load_explicit(&blocks[w].responses[op][slot],
                                            memory_order_relaxed);
            if (!sum)
                continue;
            int status = bsf_sbi_status_of_slot(slot);
            bsf_text_printf(t, "bsf_sbi_responses_total{operation=\"%s\",status=\"%s%d\"} %llu\n",
                        bsf_sbi_op_name(op), status ? "" : "other", status ? status : 0,
                        (unsigned long long)sum);
        }
    bsf_text_printf(t, "# HELP bsf_sbi_request_duration_seconds Time from a complete request to "
                   "its answer.\n# TYPE bsf_sbi_request_duration_seconds histogram\n");
    for (int op = 0; op < BSF_SBI_OP_COUNT; op++) {
        uint64_t cumulative = 0, sum_ns = 0;
        for (unsigned w = 0; w < workers; w++)
            sum_ns += atomic_load_explicit(&blocks[w].latency_sum_ns[op],
                                           memory_order_relaxed);
        for (unsigned b = 0; b < BSF_SBI_LATENCY_BUCKETS; b++) {
            for (unsigned w = 0; w < workers; w++)
                cumulative += atomic_load_explicit(&blocks[w].latency[op][b],
                                                   memory_order_relaxed);
            double bound = bsf_sbi_latency_bound(b);
            if (bound > 0)
                bsf_text_printf(t,
                            "bsf_sbi_request_duration_seconds_bucket{operation=\"%s\",le=\"%g\"} "
                            "%llu\n",
                            bsf_sbi_op_name(op), bound, (unsigned long long)cumulative);
            else
                bsf_text_printf(t,
                            "bsf_sbi_request_duration_seconds_bucket{operation=\"%s\",le=\"+Inf\"} "
                            "%llu\n",
                            bsf_sbi_op_name(op), (unsigned long long)cumulative);
        }
        bsf_text_printf(t, "bsf_sbi_request_duration_seconds_sum{operation=\"%s\"} %.9f\n",
                    bsf_sbi_op_name(op), (double)sum_ns / 1e9);
        bsf_text_printf(t, "bsf_sbi_request_duration_seconds_count{operation=\"%s\"} %llu\n",
                    bsf_sbi_op_name(op), (unsigned long long)cumulative);
    }
    uint64_t full = 0;
    for (unsigned w = 0; w < workers; w++)
        full += atomic_load_explicit(&blocks[w].rejected_queue_full,
                                     memory_order_relaxed);
    bsf_text_printf(t, "# HELP bsf_sbi_rejected_queue_full_total Writes refused with 503 "
                       "because the write queue was full.\n"
                       "# TYPE bsf_sbi_rejected_queue_full_total counter\n"
                       "bsf_sbi_rejected_queue_full_total %llu\n",
                (unsigned long long)full);
}

void bsf_sbi_metrics_write_h2(const bsf_h2_stats_t *st, bsf_text_t *t)
{
    bsf_text_printf(t, "# HELP bsf_sbi_timeouts_total HTTP/2 connections or streams ended by a "
                       "deadline, by phase.\n# TYPE bsf_sbi_timeouts_total counter\n");
    for (unsigned i = 0; i < BSF_H2_TIMEOUT_COUNT; i++)
        bsf_text_printf(t, "bsf_sbi_timeouts_total{phase=\"%s\"} %llu\n", bsf_h2_timeout_name(i),
                        (unsigned long long)st->timeouts[i]);
    bsf_text_printf(t,
                    "# HELP bsf_sbi_refused_streams_total Streams refused (REFUSED_STREAM) for the"
                    " worker memory budget.\n"
                    "# TYPE bsf_sbi_refused_streams_total counter\n"
                    "bsf_sbi_refused_streams_total %llu\n"
                    "# HELP bsf_sbi_refused_connections_total Connections closed at accept (memory"
                    " budget or sbi.max_connections).\n"
                    "# TYPE bsf_sbi_refused_connections_total counter\n"
                    "bsf_sbi_refused_connections_total %llu\n"
                    "# HELP bsf_sbi_headers_too_large_total Requests answered 431 or reset for "
                    "their header list.\n"
                    "# TYPE bsf_sbi_headers_too_large_total counter\n"
                    "bsf_sbi_headers_too_large_total %llu\n"
                    "# HELP bsf_sbi_protocol_errors_total Connections ended with a GOAWAY error "
                    "code.\n"
                    "# TYPE bsf_sbi_protocol_errors_total counter\n"
                    "bsf_sbi_protocol_errors_total %llu\n"
                    "# HELP bsf_sbi_accept_errors_total accept() failures (EMFILE, ENFILE).\n"
                    "# TYPE bsf_sbi_accept_errors_total counter\n"
                    "bsf_sbi_accept_errors_total %llu\n"
                    "# HELP bsf_sbi_connections Open SBI connections.\n"
                    "# TYPE bsf_sbi_connections gauge\n"
                    "bsf_sbi_connections %llu\n"
                    "# HELP bsf_sbi_connection_memory_bytes Memory held by the open SBI "
                    "connections.\n"
                    "# TYPE bsf_sbi_connection_memory_bytes gauge\n"
                    "bsf_sbi_connection_memory_bytes %llu\n",
                    (unsigned long long)st->refused_streams,
                    (unsigned long long)st->refused_connections,
                    (unsigned long long)st->headers_too_large,
                    (unsigned long long)st->protocol_errors, (unsigned long long)st->accept_errors,
                    (unsigned long long)st->connections, (unsigned long long)st->memory_bytes);
    bsf_text_printf(t,
                    "# HELP bsf_sbi_tls_handshakes_total TLS handshakes completed (ALPN h2).\n"
                    "# TYPE bsf_sbi_tls_handshakes_total counter\n"
                    "bsf_sbi_tls_handshakes_total %llu\n"
                    "# HELP bsf_sbi_tls_handshake_failures_total TLS handshakes refused "
                    "(protocol version, no ALPN h2, client certificate).\n"
                    "# TYPE bsf_sbi_tls_handshake_failures_total counter\n"
                    "bsf_sbi_tls_handshake_failures_total %llu\n"
                    "# HELP bsf_sbi_priority_reads_total Reads of connections that carry more "
                    "important requests than the shed or pushing ones, made between the other "
                    "connections' reads (priority first, issue 14 section 6).\n"
                    "# TYPE bsf_sbi_priority_reads_total counter\n"
                    "bsf_sbi_priority_reads_total %llu\n",
                    (unsigned long long)st->tls_handshakes, (unsigned long long)st->tls_failures,
                    (unsigned long long)st->priority_reads);
}
