/* Configuration keys of the message feed (seed §3.43, docs/feed.md). The seed's names are
 * given in the descriptions (topicName, copyPayload, ackRequired, retryOnFailure). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    {"feed.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(feed.enabled),
     "Copy every SBI request and response to the feed topic (seed 3.43, docs/feed.md)."},
    {"feed.brokers", BSF_CFG_STRING, "", 0, 1023, NULL, BSF_CFG_FIELD(feed.brokers),
     "Kafka bootstrap servers of the feed, `host:port[,host:port...]`; required when the feed "
     "is enabled."},
    {"feed.topic", BSF_CFG_STRING, "BSF", 1, BSF_FEED_TOPIC_MAX, NULL, BSF_CFG_FIELD(feed.topic),
     "Kafka topic of the feed (topicName)."},
    {"feed.copy_payload", BSF_CFG_BOOL, "true", 0, 0, NULL, BSF_CFG_FIELD(feed.copy_payload),
     "Records carry the message body (copyPayload); without it, metadata and headers only."},
    {"feed.ack_required", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(feed.ack_required),
     "Produce with acks=all and count a record as sent once the broker acknowledged it "
     "(ackRequired); false = acks=0, sent once written to the socket."},
    {"feed.retry_on_failure", BSF_CFG_UINT, "0", 0, 1000, NULL,
     BSF_CFG_FIELD(feed.retry_on_failure),
     "Times the Kafka client resends a record whose produce request failed (retryOnFailure); "
     "0 = never."},
    {"feed.queue_capacity", BSF_CFG_UINT, "16384", 16, 262144, NULL,
     BSF_CFG_FIELD(feed.queue_capacity),
     "Records waiting for the feed thread (1 KiB of memory allocated at start-up for each), and "
     "again records inside the Kafka client, before new ones are dropped (counted)."},
    {"feed.queue_max_mb", BSF_CFG_UINT, "64", 1, 4096, NULL, BSF_CFG_FIELD(feed.queue_max_mb),
     "MiB of waiting records larger than 1 KiB, and MiB of records inside the Kafka client, "
     "before new ones are dropped (counted)."},
    {"feed.max_payload_bytes", BSF_CFG_UINT, "65536", 256, 1048576, NULL,
     BSF_CFG_FIELD(feed.max_payload_bytes),
     "Longest payload copied into a record; a longer one is cut and the record says "
     "`truncated` (a record above the client's `message.max.bytes`, 1 MB by default, is "
     "dropped)."},
    {"feed.message_timeout_ms", BSF_CFG_UINT, "5000", 100, 600000, NULL,
     BSF_CFG_FIELD(feed.message_timeout_ms),
     "How long the Kafka client tries to deliver a record before counting it as a delivery "
     "failure."},
    {"feed.flush_timeout_ms", BSF_CFG_UINT, "2000", 0, 60000, NULL,
     BSF_CFG_FIELD(feed.flush_timeout_ms),
     "At shutdown, how long to wait for the delivery of queued records; the rest is counted "
     "as delivery failures."},
    {"feed.client_properties", BSF_CFG_LIST, "", 0, 4095, NULL,
     BSF_CFG_FIELD(feed.client_properties),
     "Extra librdkafka properties `name=value` (e.g. `security.protocol=SASL_SSL`, "
     "`compression.codec=lz4`); not those set by the keys above."},
};

/* Runs after every key is set: the feed checks its settings (topic name, brokers, the Kafka
 * client configuration they make). */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    return bsf_feed_settings_check(&cfg->feed, err, err_cap);
}

const bsf_config_section_t bsf_config_feed_section = {keys, sizeof keys / sizeof keys[0],
                                                      finish};
