/* Reading topics of the replicated log: partition 0 of each topic (the layout has one
 * partition per topic), assigned at given offsets (no consumer group, nothing committed),
 * read_committed, with end-of-partition tracking. Used by the consumer that applies other
 * sites' events, by the shipper to find what it already shipped, and by bsfctl. */
#ifndef BSF_REPLICATION_KAFKA_READER_H
#define BSF_REPLICATION_KAFKA_READER_H

#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_KAFKA_READER_MAX_TOPICS 16
#define BSF_KAFKA_FROM_BEGINNING RD_KAFKA_OFFSET_BEGINNING
#define BSF_KAFKA_FROM_END RD_KAFKA_OFFSET_END

typedef struct bsf_kafka_reader bsf_kafka_reader_t;

/* Creates the consumer (no assignment yet). `topics` holds `n` names (copied). */
int bsf_kafka_reader_new(const char *brokers, const char *properties, const char *client_id,
                         const char *const *topics, size_t n, bsf_kafka_reader_t **out,
                         char *err, size_t err_cap);
void bsf_kafka_reader_free(bsf_kafka_reader_t *r);

/* The offset of each topic's first event at or after `time_ms` (Unix ms, the events' Kafka
 * timestamp: their HLC time), or BSF_KAFKA_FROM_END when there is none. Returns 0 or -1. */
int bsf_kafka_reader_offsets_for_time(bsf_kafka_reader_t *r, int64_t time_ms, int64_t *offsets,
                                      int timeout_ms, char *err, size_t err_cap);

/* (Re)assigns every topic at offsets[i] (an offset, BSF_KAFKA_FROM_BEGINNING or _END) and
 * clears the end-of-partition state. Returns 0 or -1. */
int bsf_kafka_reader_assign(bsf_kafka_reader_t *r, const int64_t *offsets, char *err,
                            size_t err_cap);

/* The next message (rd_kafka_message_destroy it), or NULL after `timeout_ms` without one.
 * End-of-partition events are consumed here (see at_end) and not returned. A message with
 * `err` set is an error of that topic (returned so the caller can report it). */
rd_kafka_message_t *bsf_kafka_reader_next(bsf_kafka_reader_t *r, int timeout_ms);

/* Index in `topics` of a message's topic (0 when unknown). */
size_t bsf_kafka_reader_topic_index(const bsf_kafka_reader_t *r, const rd_kafka_message_t *m);
/* True when every topic reached its end (read_committed: the last stable offset) and had
 * no message since. */
bool bsf_kafka_reader_at_end(const bsf_kafka_reader_t *r);
bool bsf_kafka_reader_topic_at_end(const bsf_kafka_reader_t *r, size_t topic);
/* High watermark of a topic as last fetched (no request); -1 when not known yet. */
int64_t bsf_kafka_reader_high_watermark(bsf_kafka_reader_t *r, size_t topic);
/* The broker's low and high watermark (a request). Returns 0 or -1. */
int bsf_kafka_reader_query_watermarks(bsf_kafka_reader_t *r, size_t topic, int64_t *low,
                                      int64_t *high, int timeout_ms);
size_t bsf_kafka_reader_topics(const bsf_kafka_reader_t *r);
const char *bsf_kafka_reader_topic(const bsf_kafka_reader_t *r, size_t topic);
rd_kafka_t *bsf_kafka_reader_handle(bsf_kafka_reader_t *r);

#endif
