/* feed/feed: a feed producing to librdkafka's in-process mock cluster (delivery, drops). */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "feed/feed.h"
#include "tests/unit/feed_fixtures.h"

static unsigned long long metric(bsf_feed_t *feed, const char *line_start)
{
    bsf_text_t t = {0};
    bsf_feed_write_metrics(feed, &t);
    char line[160];
    snprintf(line, sizeof line, "\n%s", line_start); /* a sample, not its # HELP line */
    const char *p = strstr(t.data, line);
    unsigned long long v = p ? strtoull(p + strlen(line), NULL, 10) : ~0ull;
    bsf_text_free(&t);
    return v;
}

static unsigned long long wait_metric(bsf_feed_t *feed, const char *line_start,
                                      unsigned long long want)
{
    unsigned long long v = 0;
    for (int i = 0; i < 1000 && (v = metric(feed, line_start)) != want; i++)
        usleep(10000);
    return v;
}

static void feed_delivers_to_mock_cluster(void **state)
{
    (void)state;
    bsf_feed_settings_t s = tf_settings();
    snprintf(s.client_properties, sizeof s.client_properties, "test.mock.num.brokers=1");
    s.ack_required = true;
    char err[256];
    bsf_feed_t *feed;
    assert_int_equal(bsf_feed_create(&s, 3, &feed, err, sizeof err), 0);
    static char big[5000]; /* larger than a queue cell: allocated */
    memset(big, 'x', sizeof big);
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .method = "GET", .path = "/"};
    for (int i = 0; i < 100; i++) {
        rec.transaction_id = bsf_feed_transaction_id(feed);
        rec.kind = i % 2 ? BSF_FEED_RESPONSE : BSF_FEED_REQUEST;
        rec.payload = i % 10 ? NULL : big;
        rec.payload_len = i % 10 ? 0 : sizeof big;
        assert_true(bsf_feed_offer(feed, &rec));
    }
    assert_int_equal(wait_metric(feed, "bsf_feed_sent_total ", 100), 100);
    assert_int_equal(metric(feed, "bsf_feed_produced_total "), 100);
    assert_int_equal(metric(feed, "bsf_feed_offered_total{protocol=\"sbi\",direction=\"ingress\","
                                  "kind=\"request\"} "),
                     50);
    assert_int_equal(metric(feed, "bsf_feed_dropped_total{reason=\"queue_full\"} "), 0);
    assert_int_equal(metric(feed, "bsf_feed_queue_depth "), 0);
    assert_int_equal(metric(feed, "bsf_feed_queue_overflow_bytes "), 0);
    assert_true(metric(feed, "bsf_feed_produced_bytes_total ") > 10 * sizeof big);
    bsf_feed_destroy(feed);
}

static void feed_drops_when_full(void **state)
{
    (void)state;
    /* No broker at all: records pile up in the client until its queue is full. */
    bsf_feed_settings_t s = tf_settings();
    s.queue_capacity = 16;
    s.flush_timeout_ms = 0;
    char err[256];
    bsf_feed_t *feed;
    assert_int_equal(bsf_feed_create(&s, 3, &feed, err, sizeof err), 0);
    bsf_feed_record_t rec = {.protocol = BSF_FEED_DIAMETER, .command_code = 265};
    size_t queued = 0;
    for (int i = 0; i < 2000; i++)
        queued += bsf_feed_offer(feed, &rec);
    assert_true(queued < 2000);
    unsigned long long dropped = 0;
    const char *reasons[] = {"queue_full", "client_queue_full"};
    /* Every record is either produced or dropped once the feed thread caught up. */
    for (int i = 0; i < 500; i++) {
        dropped = 0;
        for (int r = 0; r < 2; r++) {
            char line[96];
            snprintf(line, sizeof line, "bsf_feed_dropped_total{reason=\"%s\"} ", reasons[r]);
            dropped += metric(feed, line);
        }
        if (dropped + metric(feed, "bsf_feed_produced_total ") == 2000)
            break;
        usleep(10000);
    }
    assert_int_equal(dropped + metric(feed, "bsf_feed_produced_total "), 2000);
    assert_true(metric(feed, "bsf_feed_produced_total ") <= 16);
    assert_int_equal(metric(feed, "bsf_feed_queue_depth "), 0);
    bsf_feed_destroy(feed); /* flush bound 0: the client's records are purged */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(feed_delivers_to_mock_cluster),
        cmocka_unit_test(feed_drops_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
