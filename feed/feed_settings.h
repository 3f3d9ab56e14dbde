/* Settings of the message feed for monitoring (seed §3.43): copies of SBI and Diameter
 * messages to a Kafka topic (keys declared in bsfd/config_keys_feed.c, behaviour in
 * docs/feed.md). */
#ifndef BSF_FEED_FEED_SETTINGS_H
#define BSF_FEED_FEED_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define BSF_FEED_TOPIC_MAX 249 /* Kafka's limit on a topic name */

typedef struct {
    bool enabled;
    char brokers[1024];         /* bootstrap servers, "host:port[,host:port...]" */
    char topic[BSF_FEED_TOPIC_MAX + 1]; /* topicName */
    bool copy_payload;          /* copyPayload: records carry the message body */
    bool ack_required;          /* ackRequired: acks=all (else acks=0) */
    unsigned retry_on_failure;  /* retryOnFailure: resends by the Kafka client, 0 = none */
    unsigned queue_capacity;    /* records waiting for the feed thread (and in the client) */
    unsigned queue_max_mb;      /* MiB of waiting records too large for a queue cell (and
                                   MiB of records in the client) */
    unsigned max_payload_bytes; /* longer payloads are cut (the record says so) */
    unsigned message_timeout_ms; /* how long the client tries to deliver a record */
    unsigned flush_timeout_ms;  /* at shutdown, wait this long for queued records */
    char client_properties[4096]; /* extra librdkafka properties "name=value", '\n'-separated */
} bsf_feed_settings_t;

/* Checks the settings (topic name, brokers when enabled, every extra Kafka property known
 * to librdkafka and not one the feed sets itself). Returns 0, or -1 with a message naming
 * the configuration key. */
int bsf_feed_settings_check(const bsf_feed_settings_t *s, char *err, size_t err_cap);

#endif
