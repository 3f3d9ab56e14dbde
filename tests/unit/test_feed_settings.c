/* feed/feed_settings: checks of the feed settings. */
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
#include "feed/feed_settings.h"

static bsf_feed_settings_t settings(void)
{
    bsf_feed_settings_t s = {.enabled = true, .topic = "bsf.feed", .copy_payload = true,
                             .queue_capacity = 1024, .queue_max_mb = 16,
                             .max_payload_bytes = 65536, .message_timeout_ms = 5000,
                             .flush_timeout_ms = 2000};
    snprintf(s.brokers, sizeof s.brokers, "127.0.0.1:9");
    return s;
}

static void settings_checks(void **state)
{
    (void)state;
    char err[256];
    bsf_feed_settings_t s = settings();
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    snprintf(s.topic, sizeof s.topic, "a/b");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.topic"));
    s = settings();
    s.brokers[0] = '\0';
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.brokers"));
    s.enabled = false; /* not needed when off */
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    s = settings();
    snprintf(s.client_properties, sizeof s.client_properties, "linger.ms=10\nacks=1");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.client_properties"));
    snprintf(s.client_properties, sizeof s.client_properties, "no.such.property=1");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    snprintf(s.client_properties, sizeof s.client_properties, "linger.ms");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    snprintf(s.client_properties, sizeof s.client_properties,
             "linger.ms=10\ncompression.codec=lz4");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
