/* The feed thread: the only user of the Kafka client. It takes records off the queue, encodes
 * them, produces them and serves the client's callbacks (delivery reports, errors, logs). */
#include "feed/feed_producer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "feed/feed_encode.h"
#include "feed/feed_internal.h"
#include "feed/feed_kafka_conf.h"
#include "feed/feed_overflow.h"
#include "feed/feed_snapshot.h"

#define BATCH 512             /* records produced between two polls of the client */
#define IDLE_POLL_MS 5        /* wait for records (and callbacks) when the queue is empty */
#define REPORT_INTERVAL_NS (10ull * 1000000000ull) /* at most one warning per 10 s */
#define SCRATCH_KEEP (1u << 20) /* an encoding buffer larger than this is not kept */
#define PURGE_WAIT_MS 1000    /* at shutdown, wait for the reports of purged records */
#define METADATA_WAIT_MS 1000 /* at start, wait this long for the topic's metadata */

/* ---- diagnostics: rate-limited, on the feed thread only ------------------------------- */

__attribute__((format(printf, 2, 3))) static void report(bsf_feed_t *f, const char *fmt, ...)
{
    uint64_t now = bsf_clock_mono_ns();
    if (f->last_report_ns && now - f->last_report_ns < REPORT_INTERVAL_NS) {
        f->reports_suppressed++;
        return;
    }
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (f->reports_suppressed)
        BSF_WARN("feed", "%s (%llu more reports in the last 10 s)", text, f->reports_suppressed);
    else
        BSF_WARN("feed", "%s", text);
    f->last_report_ns = now;
    f->reports_suppressed = 0;
}

/* ---- Kafka client callbacks (served by rd_kafka_poll / rd_kafka_flush on this thread) --- */

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    bsf_feed_t *f = opaque;
    if (!m->err) {
        atomic_fetch_add_explicit(&f->counters.sent, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&f->counters.delivery_failed, 1, memory_order_relaxed);
    if (m->err != RD_KAFKA_RESP_ERR__PURGE_QUEUE && m->err != RD_KAFKA_RESP_ERR__PURGE_INFLIGHT)
        report(f, "a record was not delivered to topic %s: %s", f->settings.topic,
               rd_kafka_err2str(m->err));
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    bsf_feed_t *f = opaque;
    report(f, "Kafka client: %s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    bsf_feed_t *f = rd_kafka_opaque(rk);
    if (level <= 4) /* syslog warning and worse */
        report(f, "Kafka client %s: %s", fac, buf);
    else
        BSF_DEBUG("feed", "Kafka client %s: %s", fac, buf);
}

/* ---- producing ----------------------------------------------------------------------- */

static void produce(bsf_feed_t *f, bsf_feed_snapshot_t *snap)
{
    if (f->client_full) { /* no room in the client: do not even encode */
        bsf_feed_count_drop(&f->counters, BSF_FEED_DROP_CLIENT_QUEUE_FULL);
        return;
    }
    bsf_feed_meta_t meta = {f->site_id, f->instance, snap->payload_len, snap->headers_dropped,
                            snap->truncated};
    bsf_text_t *out = &f->scratch;
    out->len = 0;
    out->failed = false;
    if (bsf_feed_encode(&snap->rec, &meta, out)) {
        bsf_feed_count_drop(&f->counters, BSF_FEED_DROP_NO_MEMORY);
        return;
    }
    char txn[BSF_FEED_TXN_TEXT_MAX];
    bsf_feed_transaction_text(&meta, snap->rec.transaction_id, txn);
    size_t key_len;
    const char *key = bsf_feed_key(&snap->rec, txn, &key_len);
    rd_kafka_resp_err_t e = rd_kafka_producev(
        f->rk, RD_KAFKA_V_RKT(f->rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE(out->data, out->len), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        f->client_full = true;
        bsf_feed_count_drop(&f->counters, BSF_FEED_DROP_CLIENT_QUEUE_FULL);
        report(f, "the Kafka client's queue is full (is the broker reachable?): dropping");
    } else if (e) {
        bsf_feed_count_drop(&f->counters, BSF_FEED_DROP_CLIENT_ERROR);
        report(f, "the Kafka client refused a record of %zu bytes: %s", out->len,
               rd_kafka_err2str(e));
    } else {
        atomic_fetch_add_explicit(&f->counters.produced, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&f->counters.produced_bytes, out->len, memory_order_relaxed);
    }
    if (out->cap > SCRATCH_KEEP)
        bsf_text_free(out);
}

/* Produces up to `max` queued records; returns how many were taken. */
static size_t drain(bsf_feed_t *f, size_t max)
{
    size_t n = 0;
    void *item;
    while (n < max && bsf_feed_queue_peek(&f->queue, &item)) {
        if (item) { /* NULL: the producer dropped its record after reserving */
            produce(f, item);
            bsf_feed_release_snapshot(f, item);
        }
        bsf_feed_queue_release(&f->queue);
        n++;
    }
    return n;
}

/* After each poll: the client's queue length, and whether it has room again. */
static void update_gauges(bsf_feed_t *f)
{
    int n = rd_kafka_outq_len(f->rk);
    atomic_store_explicit(&f->counters.client_queue, (uint64_t)(n > 0 ? n : 0),
                          memory_order_relaxed);
    if (f->client_full && n < (int)f->settings.queue_capacity)
        f->client_full = false;
}

/* At shutdown: hand over what is queued, wait for delivery within the flush bound, then
 * give up on the rest (purged records count as delivery failures). */
static void finish(bsf_feed_t *f)
{
    f->client_full = false;
    drain(f, SIZE_MAX);
    rd_kafka_flush(f->rk, (int)f->settings.flush_timeout_ms);
    if (rd_kafka_outq_len(f->rk) > 0) {
        rd_kafka_purge(f->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        uint64_t deadline = bsf_clock_mono_ns() + PURGE_WAIT_MS * 1000000ull;
        while (rd_kafka_outq_len(f->rk) > 0 && bsf_clock_mono_ns() < deadline)
            rd_kafka_poll(f->rk, 10);
    }
    update_gauges(f);
}

/* At start: ask for the topic's metadata, so that the broker creates the topic (when it
 * allows that) and the client knows its partitions before the first records arrive; the
 * records offered meanwhile wait in the queue. */
static void learn_topic(bsf_feed_t *f)
{
    const struct rd_kafka_metadata *md;
    rd_kafka_resp_err_t e = rd_kafka_metadata(f->rk, 0, f->rkt, &md, METADATA_WAIT_MS);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
        rd_kafka_metadata_destroy(md);
    else
        report(f, "no metadata of topic %s yet: %s", f->settings.topic, rd_kafka_err2str(e));
}

static void *feed_main(void *arg)
{
    bsf_feed_t *f = arg;
    learn_topic(f);
    while (!atomic_load_explicit(&f->stop, memory_order_acquire)) {
        size_t n = drain(f, BATCH);
        rd_kafka_poll(f->rk, n ? 0 : IDLE_POLL_MS);
        update_gauges(f);
    }
    finish(f);
    return NULL;
}

int bsf_feed_producer_start(bsf_feed_t *f, char *err, size_t err_cap)
{
    rd_kafka_conf_t *conf;
    if (bsf_feed_kafka_conf(&f->settings, f->site_id, &conf, err, err_cap))
        return -1;
    rd_kafka_conf_set_opaque(conf, f);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_conf_set_log_cb(conf, on_log);
    char why[512];
    f->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!f->rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, err_cap, "feed: cannot create the Kafka producer: %s", why);
        return -1;
    }
    /* Logs are served by rd_kafka_poll on the feed thread, not from the client's threads. */
    rd_kafka_set_log_queue(f->rk, NULL);
    f->rkt = rd_kafka_topic_new(f->rk, f->settings.topic, NULL);
    if (!f->rkt) {
        snprintf(err, err_cap, "feed: topic %s: %s", f->settings.topic,
                 rd_kafka_err2str(rd_kafka_last_error()));
        rd_kafka_destroy(f->rk);
        return -1;
    }
    if (pthread_create(&f->thread, NULL, feed_main, f)) {
        snprintf(err, err_cap, "feed: cannot start the feed thread");
        rd_kafka_topic_destroy(f->rkt);
        rd_kafka_destroy(f->rk);
        return -1;
    }
    pthread_setname_np(f->thread, "bsf-feed");
    f->thread_started = true;
    return 0;
}

void bsf_feed_producer_stop(bsf_feed_t *f)
{
    if (f->thread_started) {
        atomic_store_explicit(&f->stop, true, memory_order_release);
        pthread_join(f->thread, NULL);
        f->thread_started = false;
    }
    rd_kafka_topic_destroy(f->rkt);
    rd_kafka_destroy(f->rk);
    bsf_text_free(&f->scratch);
}
