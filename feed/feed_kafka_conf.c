#include "feed/feed_kafka_conf.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Properties that come from the feed's own settings (or that would break its guarantees):
 * feed.client_properties may not set them. */
static const char *const owned[] = {
    "bootstrap.servers", "metadata.broker.list", "acks", "request.required.acks", "retries",
    "message.send.max.retries", "message.timeout.ms", "delivery.timeout.ms",
    "queue.buffering.max.messages", "queue.buffering.max.kbytes", "enable.idempotence",
    "transactional.id", "log.queue", NULL};

static bool is_owned(const char *name)
{
    for (int i = 0; owned[i]; i++)
        if (strcmp(owned[i], name) == 0)
            return true;
    return false;
}

static int set(rd_kafka_conf_t *conf, const char *key, const char *name, const char *value,
               char *err, size_t err_cap)
{
    char why[256];
    if (rd_kafka_conf_set(conf, name, value, why, sizeof why) != RD_KAFKA_CONF_OK) {
        snprintf(err, err_cap, "%s: %s", key, why);
        return -1;
    }
    return 0;
}

/* Applies every "name=value" line of feed.client_properties. */
static int apply_options(rd_kafka_conf_t *conf, const char *options, char *err, size_t err_cap)
{
    const char *p = options;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char item[1024];
        if (n >= sizeof item) {
            snprintf(err, err_cap,
                     "feed.client_properties: an item is longer than %zu characters",
                     sizeof item - 1);
            return -1;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        p += n + (nl ? 1 : 0);
        if (!n)
            continue;
        char *eq = strchr(item, '=');
        if (!eq || eq == item) {
            snprintf(err, err_cap, "feed.client_properties: '%s' is not name=value", item);
            return -1;
        }
        *eq = '\0';
        if (is_owned(item)) {
            snprintf(err, err_cap,
                     "feed.client_properties: '%s' is set by the feed's own settings (feed.*)",
                     item);
            return -1;
        }
        if (set(conf, "feed.client_properties", item, eq + 1, err, err_cap))
            return -1;
    }
    return 0;
}

int bsf_feed_kafka_conf(const bsf_feed_settings_t *s, uint16_t site_id, rd_kafka_conf_t **out,
                        char *err, size_t err_cap)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char client_id[32], retries[16], timeout[16], messages[16], kbytes[24];
    snprintf(client_id, sizeof client_id, "bsf-feed-%u", site_id);
    snprintf(retries, sizeof retries, "%u", s->retry_on_failure);
    snprintf(timeout, sizeof timeout, "%u", s->message_timeout_ms);
    snprintf(messages, sizeof messages, "%u", s->queue_capacity);
    snprintf(kbytes, sizeof kbytes, "%llu", (unsigned long long)s->queue_max_mb * 1024u);
    if (set(conf, "feed.brokers", "bootstrap.servers", s->brokers, err, err_cap) ||
        set(conf, "feed.ack_required", "acks", s->ack_required ? "all" : "0", err, err_cap) ||
        set(conf, "feed.retry_on_failure", "message.send.max.retries", retries, err, err_cap) ||
        set(conf, "feed.message_timeout_ms", "message.timeout.ms", timeout, err, err_cap) ||
        set(conf, "feed.queue_capacity", "queue.buffering.max.messages", messages, err,
            err_cap) ||
        set(conf, "feed.queue_max_mb", "queue.buffering.max.kbytes", kbytes, err, err_cap) ||
        set(conf, "feed", "client.id", client_id, err, err_cap) ||
        set(conf, "feed", "log.queue", "true", err, err_cap) ||
        apply_options(conf, s->client_properties, err, err_cap)) {
        rd_kafka_conf_destroy(conf);
        return -1;
    }
    *out = conf;
    return 0;
}
