/* Helpers of the feed's unit tests (test_feed*.c). They fail the running cmocka test on a
 * broken expectation. */
#ifndef BSF_TESTS_UNIT_FEED_FIXTURES_H
#define BSF_TESTS_UNIT_FEED_FIXTURES_H

#include <jansson.h>

#include "feed/feed_encode.h"
#include "feed/feed_settings.h"

/* The record encoded and parsed back (one JSON object on one line; the caller frees it). */
json_t *tf_encode(const bsf_feed_record_t *rec, const bsf_feed_meta_t *meta);
/* A string / integer member of `doc`. */
const char *tf_str(json_t *doc, const char *name);
json_int_t tf_num(json_t *doc, const char *name);
/* Valid settings of an enabled feed (brokers 127.0.0.1:9, nothing listens there). */
bsf_feed_settings_t tf_settings(void);

#endif
