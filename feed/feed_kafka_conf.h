/* The Kafka client configuration of the feed, built from its settings: what the feed sets
 * itself (brokers, acks, retries, timeouts, queue bounds, logging through the feed thread)
 * plus the extra properties of `feed.client_properties`. */
#ifndef BSF_FEED_FEED_KAFKA_CONF_H
#define BSF_FEED_FEED_KAFKA_CONF_H

#include <librdkafka/rdkafka.h>
#include <stdint.h>

#include "feed/feed_settings.h"

/* A new configuration (the caller owns it: rd_kafka_new takes it, or rd_kafka_conf_destroy).
 * Returns 0, or -1 with a message naming the configuration key at fault. */
int bsf_feed_kafka_conf(const bsf_feed_settings_t *s, uint16_t site_id, rd_kafka_conf_t **out,
                        char *err, size_t err_cap);

#endif
