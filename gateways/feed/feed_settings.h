/* Settings of the message feed for monitoring (seed §3.43): copies of SBI and Diameter
 * messages to a Kafka topic (keys declared in bsfd/config_keys_feed.c). */
#ifndef BSF_GATEWAYS_FEED_FEED_SETTINGS_H
#define BSF_GATEWAYS_FEED_FEED_SETTINGS_H

#include <stdbool.h>

typedef struct {
    bool enabled;
} bsf_feed_settings_t;

#endif
