#include "feed/feed_metrics.h"

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

void bsf_feed_counters_write(const bsf_feed_counters_t *c, const bsf_feed_queue_gauges_t *q,
                             bsf_text_t *out)
{
    static const char *const protocols[] = {"sbi", "diameter"};
    static const char *const directions[] = {"ingress", "egress"};
    static const char *const kinds[] = {"request", "response"};
    bsf_text_printf(out, "# HELP bsf_feed_offered_total Messages offered to the feed.\n"
                         "# TYPE bsf_feed_offered_total counter\n");
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 2; k++)
                bsf_text_printf(out,
                                "bsf_feed_offered_total{protocol=\"%s\",direction=\"%s\","
                                "kind=\"%s\"} %llu\n",
                                protocols[p], directions[d], kinds[k],
                                (unsigned long long)get(&c->offered[p][d][k]));
    bsf_text_printf(out, "# HELP bsf_feed_dropped_total Records not handed to the broker, by "
                         "reason.\n# TYPE bsf_feed_dropped_total counter\n");
    for (int r = 0; r < BSF_FEED_DROP_COUNT; r++)
        bsf_text_printf(out, "bsf_feed_dropped_total{reason=\"%s\"} %llu\n",
                        bsf_feed_drop_name((bsf_feed_drop_t)r),
                        (unsigned long long)get(&c->dropped[r]));
    bsf_text_printf(
        out,
        "# HELP bsf_feed_produced_total Records handed to the Kafka client.\n"
        "# TYPE bsf_feed_produced_total counter\n"
        "bsf_feed_produced_total %llu\n"
        "# HELP bsf_feed_produced_bytes_total Encoded bytes handed to the Kafka client.\n"
        "# TYPE bsf_feed_produced_bytes_total counter\n"
        "bsf_feed_produced_bytes_total %llu\n"
        "# HELP bsf_feed_sent_total Records delivered (acknowledged per feed.ack_required).\n"
        "# TYPE bsf_feed_sent_total counter\n"
        "bsf_feed_sent_total %llu\n"
        "# HELP bsf_feed_delivery_failures_total Records the Kafka client could not deliver.\n"
        "# TYPE bsf_feed_delivery_failures_total counter\n"
        "bsf_feed_delivery_failures_total %llu\n"
        "# HELP bsf_feed_queue_depth Records waiting for the feed thread.\n"
        "# TYPE bsf_feed_queue_depth gauge\n"
        "bsf_feed_queue_depth %llu\n"
        "# HELP bsf_feed_queue_overflow_bytes Bytes of the waiting records too large for a "
        "queue cell.\n"
        "# TYPE bsf_feed_queue_overflow_bytes gauge\n"
        "bsf_feed_queue_overflow_bytes %llu\n"
        "# HELP bsf_feed_queue_capacity Records the feed queue holds at most.\n"
        "# TYPE bsf_feed_queue_capacity gauge\n"
        "bsf_feed_queue_capacity %llu\n"
        "# HELP bsf_feed_queue_overflow_max_bytes Bound of bsf_feed_queue_overflow_bytes.\n"
        "# TYPE bsf_feed_queue_overflow_max_bytes gauge\n"
        "bsf_feed_queue_overflow_max_bytes %llu\n"
        "# HELP bsf_feed_client_queue_depth Records inside the Kafka client, not yet delivered.\n"
        "# TYPE bsf_feed_client_queue_depth gauge\n"
        "bsf_feed_client_queue_depth %llu\n",
        (unsigned long long)get(&c->produced), (unsigned long long)get(&c->produced_bytes),
        (unsigned long long)get(&c->sent), (unsigned long long)get(&c->delivery_failed),
        (unsigned long long)q->depth, (unsigned long long)q->overflow_bytes,
        (unsigned long long)q->capacity, (unsigned long long)q->max_bytes,
        (unsigned long long)get(&c->client_queue));
}
