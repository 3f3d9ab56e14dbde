#include "gateways/sbi/sbi_metrics.h"

#include <stdio.h>

#include "common/metrics_text.h"

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

static void write_responses(const bsf_sbi_metrics_t *blocks, unsigned workers, bsf_text_t *t)
{
    bsf_metrics_family(t, "bsf_sbi_responses_total", "counter",
                       "SBI responses by operation and status.");
    for (int op = 0; op < BSF_SBI_OP_COUNT; op++)
        for (unsigned slot = 0; slot < BSF_SBI_STATUS_SLOTS; slot++) {
            uint64_t sum = 0;
            for (unsigned w = 0; w < workers; w++)
                sum += atomic_load_explicit(&blocks[w].responses[op][slot],
                                            memory_order_relaxed);
            if (!sum)
                continue;
            int status = bsf_sbi_status_of_slot(slot);
            char labels[64];
            snprintf(labels, sizeof labels, "operation=\"%s\",status=\"%s%d\"",
                     bsf_sbi_op_name(op), status ? "" : "other", status ? status : 0);
            bsf_metrics_u64(t, "bsf_sbi_responses_total", labels, sum);
        }
}

static void write_durations(const bsf_sbi_metrics_t *blocks, unsigned workers, bsf_text_t *t)
{
    bsf_metrics_family(t, "bsf_sbi_request_duration_seconds", "histogram",
                       "Time from a complete request to its answer.");
    for (int op = 0; op < BSF_SBI_OP_COUNT; op++) {
        uint64_t counts[BSF_SBI_LATENCY_BUCKETS] = {0}, count = 0, sum_ns = 0;
        for (unsigned w = 0; w < workers; w++)
            sum_ns += atomic_load_explicit(&blocks[w].latency_sum_ns[op],
                                           memory_order_relaxed);
        for (unsigned b = 0; b < BSF_SBI_LATENCY_BUCKETS; b++) {
            for (unsigned w = 0; w < workers; w++)
                counts[b] += atomic_load_explicit(&blocks[w].latency[op][b],
                                                  memory_order_relaxed);
            count += counts[b];
        }
        char labels[40];
        snprintf(labels, sizeof labels, "operation=\"%s\"", bsf_sbi_op_name(op));
        /* latency_bounds ends with its 0 (+Inf) slot */
        bsf_metrics_histogram(t, &(bsf_metrics_histogram_t){
                                     .name = "bsf_sbi_request_duration_seconds",
                                     .labels = labels, .bounds = latency_bounds,
                                     .n_bounds = BSF_SBI_LATENCY_BUCKETS - 1, .counts = counts,
                                     .sum = (double)sum_ns / 1e9, .sum_decimals = 9,
                                     .count = count});
    }
}

void bsf_sbi_metrics_write(const bsf_sbi_metrics_t *blocks, unsigned workers, bsf_text_t *t)
{
    write_responses(blocks, workers, t);
    write_durations(blocks, workers, t);
    uint64_t full = 0;
    for (unsigned w = 0; w < workers; w++)
        full += atomic_load_explicit(&blocks[w].rejected_queue_full,
                                     memory_order_relaxed);
    bsf_metrics_u64_family(t, "bsf_sbi_rejected_queue_full_total", "counter",
                           "Writes refused with 503 because the write queue was full.", full);
}

void bsf_sbi_metrics_write_h2(const bsf_h2_stats_t *st, bsf_text_t *t)
{
    bsf_metrics_family(t, "bsf_sbi_timeouts_total", "counter",
                       "HTTP/2 connections or streams ended by a deadline, by phase.");
    for (unsigned i = 0; i < BSF_H2_TIMEOUT_COUNT; i++)
        bsf_metrics_u64_label(t, "bsf_sbi_timeouts_total", "phase", bsf_h2_timeout_name(i),
                              st->timeouts[i]);
    const bsf_metric_row_t rows[] = {
        {"bsf_sbi_refused_streams_total", "counter",
         "Streams refused (REFUSED_STREAM) for the worker memory budget.", st->refused_streams},
        {"bsf_sbi_refused_connections_total", "counter",
         "Connections closed at accept (memory budget or sbi.max_connections).",
         st->refused_connections},
        {"bsf_sbi_headers_too_large_total", "counter",
         "Requests answered 431 or reset for their header list.", st->headers_too_large},
        {"bsf_sbi_protocol_errors_total", "counter",
         "Connections ended with a GOAWAY error code.", st->protocol_errors},
        {"bsf_sbi_accept_errors_total", "counter", "accept() failures (EMFILE, ENFILE).",
         st->accept_errors},
        {"bsf_sbi_connections", "gauge", "Open SBI connections.", st->connections},
        {"bsf_sbi_connection_memory_bytes", "gauge",
         "Memory held by the open SBI connections.", st->memory_bytes},
        {"bsf_sbi_tls_handshakes_total", "counter", "TLS handshakes completed (ALPN h2).",
         st->tls_handshakes},
        {"bsf_sbi_tls_handshake_failures_total", "counter",
         "TLS handshakes refused (protocol version, no ALPN h2, client certificate).",
         st->tls_failures},
        {"bsf_sbi_priority_reads_total", "counter",
         "Reads of connections that carry more important requests than the shed or pushing "
         "ones, made between the other connections' reads (priority first, issue 14 section 6).",
         st->priority_reads},
    };
    BSF_METRICS_ROWS(t, rows);
}
