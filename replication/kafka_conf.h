/* librdkafka configuration shared by the BSF's Kafka clients (shipper, consumer, admin, the
 * tail reader and bsfctl): bootstrap servers, a client id, the operator's extra properties,
 * and librdkafka's own log routed to the BSF's diagnostics. */
#ifndef BSF_REPLICATION_KAFKA_CONF_H
#define BSF_REPLICATION_KAFKA_CONF_H

#include <librdkafka/rdkafka.h>
#include <stddef.h>

/* A configuration with `bootstrap.servers`, `client.id` and every `name=value` line of
 * `properties` ('\n'-separated, may be NULL). Returns NULL with a message in err. */
rd_kafka_conf_t *bsf_kafka_conf_new(const char *brokers, const char *properties,
                                    const char *client_id, char *err, size_t err_cap);
/* Sets one property; returns 0 or -1 with a message naming it. */
int bsf_kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, char *err,
                       size_t err_cap);

#endif
