/* The topics of the replicated log: created when allowed, and their settings checked at
 * start (docs/replication.md, "Topic layout"). */
#ifndef BSF_REPLICATION_KAFKA_TOPICS_H
#define BSF_REPLICATION_KAFKA_TOPICS_H

#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    bool create;                  /* create missing topics */
    unsigned replication_factor;  /* 0 = broker default */
    unsigned min_insync_replicas; /* 0 = broker default */
    int64_t retention_ms;         /* -1 = forever */
} bsf_kafka_topic_spec_t;

#define BSF_KAFKA_TOPICS_OK 0
#define BSF_KAFKA_TOPICS_UNREACHABLE 1 /* the cluster did not answer: not checked */
#define BSF_KAFKA_TOPICS_INVALID (-1)  /* a topic's layout breaks the log's rules */

/* Creates (when allowed) and checks each topic through the client `rk` (any kind). Problems
 * that do not break the log (retention, replication) are logged as warnings. Returns one of
 * BSF_KAFKA_TOPICS_*; the message says why. */
int bsf_kafka_topics_ensure(rd_kafka_t *rk, const char *const *topics, size_t n,
                            const bsf_kafka_topic_spec_t *spec, int timeout_ms, char *err,
                            size_t err_cap);

#endif
