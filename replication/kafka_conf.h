/* librdkafka configuration shared by the BSF's Kafka clients (shipper, consumer, admin, the
 * tail reader and bsfctl): bootstrap servers, a client id, the operator's extra properties,
 * and librdkafka's own log routed to the BSF's diagnostics. */
#ifndef BSF_REPLICATION_KAFKA_CONF_H
#define BSF_REPLICATION_KAFKA_CONF_H

#include <librdkafka/rdkafka.h>
#include <stddef.h>

/* A configuration with `bootstrap.servers`, `client.id`, the `defaults` (name, value pairs,
 * NULL-terminated; may be NULL), then every `name=value` line of `properties`
 * ('\n'-separated, may be NULL), which may override the defaults. Settings the log's
 * guarantees depend on are set by the caller afterwards. Returns NULL with a message. */
rd_kafka_conf_t *bsf_kafka_conf_new(const char *brokers, const char *properties,
                                    const char *client_id, const char *const *defaults,
                                    char *err, size_t err_cap);
/* Sets one property; returns 0 or -1 with a message naming it. */
int bsf_kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, char *err,
                       size_t err_cap);

#endif
