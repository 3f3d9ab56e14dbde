#include "bsfctl/kafka_source.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bsfctl/progress.h"
#include "common/clock.h"
#include "replication/kafka_reader.h"

#define TIMEOUT_MS 10000

static size_t split_topics(const char *list, char names[][256], const char **out, size_t cap)
{
    size_t n = 0;
    const char *p = list;
    while (p && *p && n < cap) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len && len < 256) {
            snprintf(names[n], 256, "%.*s", (int)len, p);
            out[n] = names[n];
            n++;
        }
        p += len + (comma ? 1 : 0);
    }
    return n;
}

/* Not on a terminal: one line a second (replay's log of its work). On a terminal: the bar,
 * towards the topics' ends as last fetched. */
static void progress(bsf_kafka_reader_t *r, bsfctl_progress_t *bar, uint64_t t0, bool last)
{
    if (bar->tty) {
        uint64_t total = 0;
        for (size_t t = 0; t < bsf_kafka_reader_topics(r); t++) {
            int64_t hi = bsf_kafka_reader_high_watermark(r, t);
            total += hi > 0 ? (uint64_t)hi : 0;
        }
        bar->total = total > bar->done ? total : 0;
        if (last)
            bsfctl_progress_end(bar);
        return;
    }
    double secs = (double)(bsf_clock_mono_ns() - t0) / 1e9;
    fprintf(stderr, "%" PRIu64 " events in %.1f s (%.0f/s)", bar->done, secs,
            secs > 0 ? (double)bar->done / secs : 0.0);
    for (size_t t = 0; t < bsf_kafka_reader_topics(r); t++) {
        int64_t hi = bsf_kafka_reader_high_watermark(r, t);
        fprintf(stderr, "  %s%s", bsf_kafka_reader_topic(r, t),
                bsf_kafka_reader_topic_at_end(r, t) ? " done" : "");
        if (hi >= 0 && !bsf_kafka_reader_topic_at_end(r, t))
            fprintf(stderr, " (end %" PRId64 ")", hi);
    }
    fprintf(stderr, "\n");
}

int bsfctl_kafka_read(const bsfctl_options_t *o, const bsfctl_kafka_read_t *how,
                      bsfctl_kafka_visit_fn visit, void *ctx)
{
    char names[BSF_KAFKA_READER_MAX_TOPICS][256];
    const char *topics[BSF_KAFKA_READER_MAX_TOPICS];
    size_t n = split_topics(o->topics, names, topics, BSF_KAFKA_READER_MAX_TOPICS);
    if (!n) {
        fprintf(stderr, "bsfctl: --kafka needs --topics T1,T2,... (at most %d)\n",
                BSF_KAFKA_READER_MAX_TOPICS);
        return -1;
    }
    char err[512], client_id[64];
    snprintf(client_id, sizeof client_id, "bsfctl-%d", (int)getpid());
    bsf_kafka_reader_t *r;
    /* Bulk reading: librdkafka keeps fetching until a million messages are queued, 8 MB per
     * fetch (its defaults, 100,000 and 1 MB, left replay waiting for fetches 45 % of the
     * time; bench/results/replication.md). */
    static const char *const bulk = "queued.min.messages=1000000\n"
                                    "max.partition.fetch.bytes=8388608\n";
    if (bsf_kafka_reader_new(o->kafka, bulk, client_id, topics, n, &r, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        return -1;
    }
    int64_t offsets[BSF_KAFKA_READER_MAX_TOPICS];
    int rc = 0;
    for (size_t t = 0; t < n; t++)
        offsets[t] = how->start == BSFCTL_FROM_OFFSET ? how->offset : BSF_KAFKA_FROM_BEGINNING;
    if (how->start == BSFCTL_FROM_TIME)
        rc = bsf_kafka_reader_offsets_for_time(r, how->time_ms, offsets, TIMEOUT_MS, err,
                                               sizeof err);
    if (!rc)
        rc = bsf_kafka_reader_assign(r, offsets, err, sizeof err);
    if (rc)
        fprintf(stderr, "bsfctl: %s\n", err);
    uint64_t t0 = bsf_clock_mono_ns(), last_progress = t0, idle_since = bsf_clock_mono_ns();
    bsfctl_progress_t bar;
    bsfctl_progress_start(&bar, "reading", 0);
    while (!rc && !bsf_kafka_reader_at_end(r)) {
        rd_kafka_message_t *m = bsf_kafka_reader_next(r, 200);
        uint64_t now = bsf_clock_mono_ns();
        if ((how->progress || bar.tty) && now - last_progress > 1000000000u) {
            progress(r, &bar, t0, false);
            last_progress = now;
        }
        if (!m) {
            if (now - idle_since > (uint64_t)TIMEOUT_MS * 1000000u) {
                fprintf(stderr, "bsfctl: no data and no end of the topics within %d s\n",
                        TIMEOUT_MS / 1000);
                rc = -1;
            }
            continue;
        }
        idle_since = now;
        if (m->err) {
            fprintf(stderr, "bsfctl: %s: %s\n", m->rkt ? rd_kafka_topic_name(m->rkt) : "kafka",
                    rd_kafka_message_errstr(m));
            rc = -1;
        } else {
            bsfctl_progress_add(&bar, 1);
            rc = visit(ctx, rd_kafka_topic_name(m->rkt), m->offset, m->payload, m->len);
        }
        rd_kafka_message_destroy(m);
    }
    if (how->progress || bar.tty)
        progress(r, &bar, t0, true);
    bsf_kafka_reader_free(r);
    return rc;
}
