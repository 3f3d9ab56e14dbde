#include "feed/feed_metrics.h"

#include <stdio.h>

#include "common/metrics_text.h"

static uint64_t get(const atomic_uint_fast64_t *v)
{
    return (uint64_t)atomic_load_explicit(v, memory_order_relaxed);
}

const char *bsf_feed_drop_name(bsf_feed_drop_t why)
{
    static const char *const names[BSF_FEED_DROP_COUNT] = {
        "queue_full", "queue_bytes", "no_memory", "client_queue_full", "client_error",
        "shutdown"};
    return (unsigned)why < BSF_FEED_DROP_COUNT ? names[why] : "other";
}

void bsf_feed_count_drop(bsf_feed_counters_t *c, bsf_feed_drop_t why)
{
    atomic_fetch_add_explicit(&c->dropped[why], 1, memory_order_relaxed);
}

static void write_offered(const bsf_feed_counters_t *c, bsf_text_t *out)
{
    static const char *const protocols[] = {"sbi", "diameter"};
    static const char *const directions[] = {"ingress", "egress"};
    static const char *const kinds[] = {"request", "response"};
    bsf_metrics_family(out, "bsf_feed_offered_total", "counter", "Messages offered to the feed.");
    char labels[80];
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 2; k++) {
                snprintf(labels, sizeof labels, "protocol=\"%s\",direction=\"%s\",kind=\"%s\"",
                         protocols[p], directions[d], kinds[k]);
                bsf_metrics_u64(out, "bsf_feed_offered_total", labels, get(&c->offered[p][d][k]));
            }
}

void bsf_feed_counters_write(const bsf_feed_counters_t *c, const bsf_feed_queue_gauges_t *q,
                             bsf_text_t *out)
{
    write_offered(c, out);
    bsf_metrics_family(out, "bsf_feed_dropped_total", "counter",
                       "Records not handed to the broker, by reason.");
    for (int r = 0; r < BSF_FEED_DROP_COUNT; r++)
        bsf_metrics_u64_label(out, "bsf_feed_dropped_total", "reason",
                              bsf_feed_drop_name((bsf_feed_drop_t)r), get(&c->dropped[r]));
    const bsf_metric_row_t rows[] = {
        {"bsf_feed_produced_total", "counter", "Records handed to the Kafka client.",
         get(&c->produced)},
        {"bsf_feed_produced_bytes_total", "counter", "Encoded bytes handed to the Kafka client.",
         get(&c->produced_bytes)},
        {"bsf_feed_sent_total", "counter",
         "Records delivered (acknowledged per feed.ack_required).", get(&c->sent)},
        {"bsf_feed_delivery_failures_total", "counter",
         "Records the Kafka client could not deliver.", get(&c->delivery_failed)},
        {"bsf_feed_queue_depth", "gauge", "Records waiting for the feed thread.", q->depth},
        {"bsf_feed_queue_overflow_bytes", "gauge",
         "Bytes of the waiting records too large for a queue cell.", q->overflow_bytes},
        {"bsf_feed_queue_capacity", "gauge", "Records the feed queue holds at most.",
         q->capacity},
        {"bsf_feed_queue_overflow_max_bytes", "gauge",
         "Bound of bsf_feed_queue_overflow_bytes.", q->max_bytes},
        {"bsf_feed_client_queue_depth", "gauge",
         "Records inside the Kafka client, not yet delivered.", get(&c->client_queue)},
    };
    BSF_METRICS_ROWS(out, rows);
}
