/* Settings of the log backend and of the replication between sites (their keys are declared
 * in bsfd/config_keys_replication.c and documented in docs/configuration.md and
 * docs/replication.md). List settings hold their items separated by '\n'. */
#ifndef BSF_REPLICATION_REPLICATION_SETTINGS_H
#define BSF_REPLICATION_REPLICATION_SETTINGS_H

#include <stdbool.h>

typedef enum {
    BSF_LOG_BACKEND_EMBEDDED = 0, /* single site: the store's own log only */
    BSF_LOG_BACKEND_KAFKA = 1,    /* the local log is an outbox shipped to Kafka */
} bsf_log_backend_t;

typedef enum {
    BSF_DURABILITY_LOCAL = 0,      /* answer after the local commit, ship asynchronously */
    BSF_DURABILITY_REPLICATED = 1, /* answer after Kafka committed the events */
} bsf_durability_t;

#define BSF_KAFKA_TOPIC_MAX 249 /* Kafka's own limit on topic names */
#define BSF_KAFKA_MAX_TOPICS 16 /* topics one site consumes */

typedef struct {
    int backend;    /* bsf_log_backend_t */
    int durability; /* bsf_durability_t */

    char brokers[512];                   /* bootstrap.servers */
    char topic[BSF_KAFKA_TOPIC_MAX + 1]; /* where this site produces; "" = bsf.events.<site> */
    char consume_topics[4096];           /* '\n'-separated; "" = the produce topic only */
    char client_properties[2048];        /* '\n'-separated librdkafka key=value */
    char transactional_id[128];          /* "" = bsf-site-<site> */

    bool create_topics;
    unsigned replication_factor;  /* 0 = the broker's default */
    unsigned min_insync_replicas; /* 0 = the broker's default */
    unsigned retention_days;      /* 0 = keep forever (retention.ms=-1) */

    unsigned linger_ms;
    unsigned ship_interval_ms;      /* durability=local: pause between two transactions */
    unsigned transaction_timeout_ms;
    unsigned replicated_timeout_ms; /* durability=replicated: longest wait for Kafka */
    unsigned ship_batch;            /* most events per shipper transaction */
    unsigned apply_batch;           /* most events per apply command */
    unsigned apply_inflight;        /* apply commands queued at the engine at once */
    unsigned catchup_timeout_ms;    /* start-up wait for the log's tail before serving */
    unsigned shutdown_timeout_ms;   /* stop: longest wait to ship what is left */
} bsf_replication_settings_t;

#endif
