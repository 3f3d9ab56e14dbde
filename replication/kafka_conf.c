#include "replication/kafka_conf.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "common/diag.h"

int bsf_kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, char *err,
                       size_t err_cap)
{
    char why[256];
    if (rd_kafka_conf_set(conf, name, value, why, sizeof why) != RD_KAFKA_CONF_OK) {
        snprintf(err, err_cap, "Kafka property %s=%s: %s", name, value, why);
        return -1;
    }
    return 0;
}

/* librdkafka's own log lines (its threads). Connection failures are expected during an
 * outage and reported once by on_error (all brokers down). */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    if (strcmp(fac, "FAIL") == 0 || strcmp(fac, "ERROR") == 0)
        BSF_DEBUG("kafka", "%s: %s", fac, buf);
    else if (level <= LOG_ERR)
        BSF_ERROR("kafka", "%s: %s", fac, buf);
    else if (level <= LOG_WARNING)
        BSF_WARN("kafka", "%s: %s", fac, buf);
    else
        BSF_DEBUG("kafka", "%s: %s", fac, buf);
}

/* Errors librdkafka reports outside of any call (it retries by itself). */
static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)opaque;
    switch (err) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__RESOLVE:
        BSF_DEBUG("kafka", "%s: %s", rd_kafka_name(rk), reason);
        break;
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        BSF_WARN("kafka", "%s: %s", rd_kafka_name(rk), reason);
        break;
    default:
        BSF_WARN("kafka", "%s: %s: %s", rd_kafka_name(rk), rd_kafka_err2name(err), reason);
    }
}

rd_kafka_conf_t *bsf_kafka_conf_new(const char *brokers, const char *properties,
                                    const char *client_id, const char *const *defaults,
                                    char *err, size_t err_cap)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (bsf_kafka_conf_set(conf, "bootstrap.servers", brokers, err, err_cap) ||
        bsf_kafka_conf_set(conf, "client.id", client_id, err, err_cap) ||
        bsf_kafka_conf_set(conf, "log.connection.close", "false", err, err_cap) ||
        bsf_kafka_conf_set(conf, "socket.keepalive.enable", "true", err, err_cap)) {
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_conf_set_log_cb(conf, on_log);
    rd_kafka_conf_set_error_cb(conf, on_error);
    for (size_t i = 0; defaults && defaults[i]; i += 2)
        if (bsf_kafka_conf_set(conf, defaults[i], defaults[i + 1], err, err_cap)) {
            rd_kafka_conf_destroy(conf);
            return NULL;
        }
    const char *p = properties ? properties : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024], *eq;
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        p += n + (nl ? 1 : 0);
        if (!line[0])
            continue;
        if (!(eq = strchr(line, '=')) || eq == line) {
            snprintf(err, err_cap, "Kafka property '%s' is not name=value", line);
            rd_kafka_conf_destroy(conf);
            return NULL;
        }
        *eq = '\0';
        if (bsf_kafka_conf_set(conf, line, eq + 1, err, err_cap)) {
            rd_kafka_conf_destroy(conf);
            return NULL;
        }
    }
    return conf;
}
