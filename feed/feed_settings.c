#include "feed/feed_settings.h"

#include <stdio.h>
#include <string.h>

#include "feed/feed_kafka_conf.h"

/* Kafka topic names: 1 to 249 of [a-zA-Z0-9._-], not "." or "..". */
static bool topic_valid(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > BSF_FEED_TOPIC_MAX || strcmp(t, ".") == 0 || strcmp(t, "..") == 0)
        return false;
    return strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int bsf_feed_settings_check(const bsf_feed_settings_t *s, char *err, size_t err_cap)
{
    if (!topic_valid(s->topic)) {
        snprintf(err, err_cap,
                 "feed.topic: '%s' is not a Kafka topic name (1 to %d of a-z A-Z 0-9 . _ -)",
                 s->topic, BSF_FEED_TOPIC_MAX);
        return -1;
    }
    if (s->enabled && !s->brokers[0]) {
        snprintf(err, err_cap, "feed.brokers: required when feed.enabled is true");
        return -1;
    }
    if (strpbrk(s->brokers, " \t")) {
        snprintf(err, err_cap, "feed.brokers: '%s' must be host:port[,host:port...] without "
                               "spaces", s->brokers);
        return -1;
    }
    /* The whole client configuration is built once here, so that a bad property stops bsfd
     * at start-up rather than when the feed starts. */
    rd_kafka_conf_t *conf;
    if (bsf_feed_kafka_conf(s, 1, &conf, err, err_cap))
        return -1;
    rd_kafka_conf_destroy(conf);
    return 0;
}
