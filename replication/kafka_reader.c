#include "replication/kafka_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replication/kafka_conf.h"

struct bsf_kafka_reader {
    rd_kafka_t *rk;
    size_t n;
    char *topics[BSF_KAFKA_READER_MAX_TOPICS];
    bool eof[BSF_KAFKA_READER_MAX_TOPICS];
};

int bsf_kafka_reader_new(const char *brokers, const char *properties, const char *client_id,
                         const char *const *topics, size_t n, bsf_kafka_reader_t **out,
                         char *err, size_t err_cap)
{
    if (n == 0 || n > BSF_KAFKA_READER_MAX_TOPICS) {
        snprintf(err, err_cap, "between 1 and %d topics", BSF_KAFKA_READER_MAX_TOPICS);
        return -1;
    }
    /* Tunable by the operator's properties: */
    static const char *const defaults[] = {"fetch.wait.max.ms", "100", "check.crcs", "true",
                                           NULL};
    rd_kafka_conf_t *conf =
        bsf_kafka_conf_new(brokers, properties, client_id, defaults, err, err_cap);
    if (!conf)
        return -1;
    /* No group membership is used (assign only); group.id names the client in broker logs. */
    char group[160];
    snprintf(group, sizeof group, "%s", client_id);
    if (bsf_kafka_conf_set(conf, "group.id", group, err, err_cap) ||
        bsf_kafka_conf_set(conf, "enable.auto.commit", "false", err, err_cap) ||
        bsf_kafka_conf_set(conf, "enable.auto.offset.store", "false", err, err_cap) ||
        bsf_kafka_conf_set(conf, "enable.partition.eof", "true", err, err_cap) ||
        bsf_kafka_conf_set(conf, "isolation.level", "read_committed", err, err_cap) ||
        bsf_kafka_conf_set(conf, "auto.offset.reset", "error", err, err_cap)) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    bsf_kafka_reader_t *r = calloc(1, sizeof *r);
    if (!r) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    char why[512];
    r->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!r->rk) {
        rd_kafka_conf_destroy(conf);
        free(r);
        snprintf(err, err_cap, "cannot create a Kafka consumer: %s", why);
        return -1;
    }
    rd_kafka_poll_set_consumer(r->rk);
    for (size_t i = 0; i < n; i++) {
        if (!(r->topics[i] = strdup(topics[i]))) {
            r->n = i;
            bsf_kafka_reader_free(r);
            snprintf(err, err_cap, "out of memory");
            return -1;
        }
    }
    r->n = n;
    *out = r;
    return 0;
}

void bsf_kafka_reader_free(bsf_kafka_reader_t *r)
{
    if (!r)
        return;
    if (r->rk) {
        rd_kafka_assign(r->rk, NULL);
        rd_kafka_consumer_close(r->rk);
        rd_kafka_destroy(r->rk);
    }
    for (size_t i = 0; i < r->n; i++)
        free(r->topics[i]);
    free(r);
}

int bsf_kafka_reader_offsets_for_time(bsf_kafka_reader_t *r, int64_t time_ms, int64_t *offsets,
                                      int timeout_ms, char *err, size_t err_cap)
{
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new((int)r->n);
    for (size_t i = 0; i < r->n; i++)
        rd_kafka_topic_partition_list_add(parts, r->topics[i], 0)->offset = time_ms;
    rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(r->rk, parts, timeout_ms);
    int rc = 0;
    if (e) {
        snprintf(err, err_cap, "offsets for time %lld: %s", (long long)time_ms,
                 rd_kafka_err2str(e));
        rc = -1;
    }
    for (int i = 0; !rc && i < parts->cnt; i++) {
        const rd_kafka_topic_partition_t *p = &parts->elems[i];
        if (p->err) {
            snprintf(err, err_cap, "offsets for time, topic %s: %s", p->topic,
                     rd_kafka_err2str(p->err));
            rc = -1;
        } else {
            offsets[i] = p->offset < 0 ? BSF_KAFKA_FROM_END : p->offset;
        }
    }
    rd_kafka_topic_partition_list_destroy(parts);
    return rc;
}

int bsf_kafka_reader_assign(bsf_kafka_reader_t *r, const int64_t *offsets, char *err,
                            size_t err_cap)
{
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new((int)r->n);
    for (size_t i = 0; i < r->n; i++) {
        rd_kafka_topic_partition_list_add(parts, r->topics[i], 0)->offset = offsets[i];
        r->eof[i] = false;
    }
    rd_kafka_resp_err_t e = rd_kafka_assign(r->rk, parts);
    rd_kafka_topic_partition_list_destroy(parts);
    if (e) {
        snprintf(err, err_cap, "cannot assign the topics: %s", rd_kafka_err2str(e));
        return -1;
    }
    return 0;
}

size_t bsf_kafka_reader_topic_index(const bsf_kafka_reader_t *r, const rd_kafka_message_t *m)
{
    const char *name = m->rkt ? rd_kafka_topic_name(m->rkt) : NULL;
    for (size_t i = 0; name && i < r->n; i++)
        if (strcmp(r->topics[i], name) == 0)
            return i;
    return 0;
}

rd_kafka_message_t *bsf_kafka_reader_next(bsf_kafka_reader_t *r, int timeout_ms)
{
    for (;;) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(r->rk, timeout_ms);
        if (!m)
            return NULL;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (m->rkt)
                r->eof[bsf_kafka_reader_topic_index(r, m)] = true;
            rd_kafka_message_destroy(m);
            timeout_ms = 0;
            continue;
        }
        if (!m->err && m->rkt)
            r->eof[bsf_kafka_reader_topic_index(r, m)] = false;
        return m;
    }
}

bool bsf_kafka_reader_at_end(const bsf_kafka_reader_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (!r->eof[i])
            return false;
    return true;
}

bool bsf_kafka_reader_topic_at_end(const bsf_kafka_reader_t *r, size_t topic)
{
    return topic < r->n && r->eof[topic];
}

int64_t bsf_kafka_reader_high_watermark(bsf_kafka_reader_t *r, size_t topic)
{
    int64_t lo = -1, hi = -1;
    if (topic >= r->n ||
        rd_kafka_get_watermark_offsets(r->rk, r->topics[topic], 0, &lo, &hi) != 0)
        return -1;
    return hi;
}

int bsf_kafka_reader_query_watermarks(bsf_kafka_reader_t *r, size_t topic, int64_t *low,
                                      int64_t *high, int timeout_ms)
{
    if (topic >= r->n)
        return -1;
    return rd_kafka_query_watermark_offsets(r->rk, r->topics[topic], 0, low, high, timeout_ms)
               ? -1
               : 0;
}

size_t bsf_kafka_reader_topics(const bsf_kafka_reader_t *r)
{
    return r->n;
}

const char *bsf_kafka_reader_topic(const bsf_kafka_reader_t *r, size_t topic)
{
    return topic < r->n ? r->topics[topic] : "";
}

rd_kafka_t *bsf_kafka_reader_handle(bsf_kafka_reader_t *r)
{
    return r->rk;
}
