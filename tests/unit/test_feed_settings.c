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
#include "tests/unit/feed_fixtures.h"

static void settings_checks(void **state)
{
    (void)state;
    char err[256];
    bsf_feed_settings_t s = tf_settings();
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    snprintf(s.topic, sizeof s.topic, "a/b");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.topic"));
    s = tf_settings();
    s.brokers[0] = '\0';
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.brokers"));
    s.enabled = false; /* not needed when off */
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    s = tf_settings();
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
