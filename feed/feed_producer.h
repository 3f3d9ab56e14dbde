/* The feed thread and its Kafka producer (feed_producer.c), started and stopped by the
 * feed's API (feed.c). */
#ifndef BSF_FEED_FEED_PRODUCER_H
#define BSF_FEED_FEED_PRODUCER_H

#include <stddef.h>

#include "feed/feed_internal.h"

/* Creates the Kafka producer and starts the thread. Returns 0, or -1 with a message. */
int bsf_feed_producer_start(bsf_feed_t *f, char *err, size_t err_cap);
/* Asks the thread to stop, joins it (it hands over what is queued and waits for delivery at
 * most feed.flush_timeout_ms) and destroys the producer. */
void bsf_feed_producer_stop(bsf_feed_t *f);

#endif
