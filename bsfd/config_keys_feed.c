/* Configuration keys of the message feed (seed §3.43, docs/feed.md). The seed's names are
 * given in the descriptions (topicName, copyPayload, ackRequired, retryOnFailure). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("feed.enabled", feed.enabled, "false",
        "Copy every SBI request and response to the feed topic (seed 3.43, docs/feed.md)."),
    BSF_CFG_STRING_KEY("feed.brokers", feed.brokers, "", 1023,
        "Kafka bootstrap servers of the feed, `host:port[,host:port...]`; required when the feed "
        "is enabled."),
    BSF_CFG_STRING_KEY("feed.topic", feed.topic, "BSF", BSF_FEED_TOPIC_MAX,
        "Kafka topic of the feed (topicName)."),
    BSF_CFG_BOOL_KEY("feed.copy_payload", feed.copy_payload, "true",
        "Records carry the message body (copyPayload); without it, metadata and headers only."),
    BSF_CFG_BOOL_KEY("feed.ack_required", feed.ack_required, "false",
        "Produce with acks=all and count a record as sent once the broker acknowledged it "
        "(ackRequired); false = acks=0, sent once written to the socket."),
    BSF_CFG_UINT_KEY("feed.retry_on_failure", feed.retry_on_failure, "0", 0, 1000,
        "Times the Kafka client resends a record whose produce request failed (retryOnFailure); "
        "0 = never."),
    BSF_CFG_UINT_KEY("feed.queue_capacity", feed.queue_capacity, "16384", 16, 262144,
        "Records waiting for the feed thread (1 KiB of memory allocated at start-up for each), "
        "and again records inside the Kafka client, before new ones are dropped (counted)."),
    BSF_CFG_UINT_KEY("feed.queue_max_mb", feed.queue_max_mb, "64", 1, 4096,
        "MiB of waiting records larger than 1 KiB, and MiB of records inside the Kafka client, "
        "before new ones are dropped (counted)."),
    BSF_CFG_UINT_KEY("feed.max_payload_bytes", feed.max_payload_bytes, "65536", 256, 1048576,
        "Longest payload copied into a record; a longer one is cut and the record says "
        "`truncated` (a record above the client's `message.max.bytes`, 1 MB by default, is "
        "dropped)."),
    BSF_CFG_UINT_KEY("feed.message_timeout_ms", feed.message_timeout_ms, "5000", 100, 600000,
        "How long the Kafka client tries to deliver a record before counting it as a delivery "
        "failure."),
    BSF_CFG_UINT_KEY("feed.flush_timeout_ms", feed.flush_timeout_ms, "2000", 0, 60000,
        "At shutdown, how long to wait for the delivery of queued records; the rest is counted "
        "as delivery failures."),
    BSF_CFG_LIST_KEY("feed.client_properties", feed.client_properties, "", 4095,
        "Extra librdkafka properties `name=value` (e.g. `security.protocol=SASL_SSL`, "
        "`compression.codec=lz4`); not those set by the keys above."),
};

/* Runs after every key is set: the feed checks its settings (topic name, brokers, the Kafka
 * client configuration they make). */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    return bsf_feed_settings_check(&cfg->feed, err, err_cap);
}

const bsf_config_section_t bsf_config_feed_section = {keys, sizeof keys / sizeof keys[0],
                                                      finish};
