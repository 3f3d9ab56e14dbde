#include "replication/kafka_topics.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/diag.h"

/* Waits for the result event of one admin request on `queue`. */
static rd_kafka_event_t *wait_result(rd_kafka_queue_t *queue, int timeout_ms)
{
    return rd_kafka_queue_poll(queue, timeout_ms);
}

static int create_missing(rd_kafka_t *rk, const char *const *topics, size_t n,
                          const bsf_kafka_topic_spec_t *spec, int timeout_ms, char *err,
                          size_t err_cap)
{
    rd_kafka_NewTopic_t **nt = calloc(n, sizeof *nt);
    if (!nt) {
        snprintf(err, err_cap, "out of memory");
        return BSF_KAFKA_TOPICS_INVALID;
    }
    char why[256], retention[32], isr[16];
    snprintf(retention, sizeof retention, "%" PRId64, spec->retention_ms);
    snprintf(isr, sizeof isr, "%u", spec->min_insync_replicas);
    int rc = BSF_KAFKA_TOPICS_OK;
    for (size_t i = 0; i < n && rc == BSF_KAFKA_TOPICS_OK; i++) {
        nt[i] = rd_kafka_NewTopic_new(topics[i], 1,
                                      spec->replication_factor ? (int)spec->replication_factor
                                                               : -1,
                                      why, sizeof why);
        if (!nt[i] || rd_kafka_NewTopic_set_config(nt[i], "cleanup.policy", "delete") ||
            rd_kafka_NewTopic_set_config(nt[i], "retention.ms", retention) ||
            rd_kafka_NewTopic_set_config(nt[i], "retention.bytes", "-1") ||
            rd_kafka_NewTopic_set_config(nt[i], "message.timestamp.type", "CreateTime") ||
            (spec->min_insync_replicas &&
             rd_kafka_NewTopic_set_config(nt[i], "min.insync.replicas", isr))) {
            snprintf(err, err_cap, "topic %s: %s", topics[i], nt[i] ? "bad setting" : why);
            rc = BSF_KAFKA_TOPICS_INVALID;
        }
    }
    if (rc == BSF_KAFKA_TOPICS_OK) {
        rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
        rd_kafka_AdminOptions_t *opt =
            rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
        rd_kafka_AdminOptions_set_request_timeout(opt, timeout_ms, why, sizeof why);
        rd_kafka_AdminOptions_set_operation_timeout(opt, timeout_ms, why, sizeof why);
        rd_kafka_CreateTopics(rk, nt, n, opt, queue);
        rd_kafka_event_t *ev = wait_result(queue, timeout_ms + 1000);
        if (!ev) {
            snprintf(err, err_cap, "creating the topics: no answer within %d ms", timeout_ms);
            rc = BSF_KAFKA_TOPICS_UNREACHABLE;
        } else if (rd_kafka_event_error(ev)) {
            rd_kafka_resp_err_t e = rd_kafka_event_error(ev);
            snprintf(err, err_cap, "creating the topics: %s", rd_kafka_event_error_string(ev));
            rc = e == RD_KAFKA_RESP_ERR__TIMED_OUT || e == RD_KAFKA_RESP_ERR__TRANSPORT
                     ? BSF_KAFKA_TOPICS_UNREACHABLE
                     : BSF_KAFKA_TOPICS_INVALID;
        } else {
            size_t cnt;
            const rd_kafka_topic_result_t **res = rd_kafka_CreateTopics_result_topics(
                rd_kafka_event_CreateTopics_result(ev), &cnt);
            for (size_t i = 0; i < cnt; i++) {
                rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
                if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
                    BSF_INFO("replication", "created topic %s", rd_kafka_topic_result_name(res[i]));
                else if (e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
                    snprintf(err, err_cap, "cannot create topic %s: %s",
                             rd_kafka_topic_result_name(res[i]),
                             rd_kafka_topic_result_error_string(res[i]));
                    rc = e == RD_KAFKA_RESP_ERR__TIMED_OUT ? BSF_KAFKA_TOPICS_UNREACHABLE
                                                           : BSF_KAFKA_TOPICS_INVALID;
                }
            }
        }
        if (ev)
            rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(opt);
        rd_kafka_queue_destroy(queue);
    }
    for (size_t i = 0; i < n; i++)
        if (nt[i])
            rd_kafka_NewTopic_destroy(nt[i]);
    free(nt);
    return rc;
}

/* Topic-level metadata errors that go away by themselves: a topic just created is not yet
 * known to every broker (or has no leader yet) for a moment. */
static bool metadata_settling(rd_kafka_resp_err_t e)
{
    return e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
           e == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE;
}

/* One partition per topic: the events of a site must stay in order. `settle`: the topics
 * were just created, wait (up to timeout_ms) for the broker to know them. */
static int check_partitions(rd_kafka_t *rk, const char *topic, bool settle, int timeout_ms,
                            char *err, size_t err_cap)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)timeout_ms * 1000000u;
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e;
    for (;;) {
        e = rd_kafka_metadata(rk, 0, rkt, &md, timeout_ms);
        if (e || !settle || md->topic_cnt != 1 || !metadata_settling(md->topics[0].err) ||
            bsf_clock_mono_ns() >= deadline)
            break;
        rd_kafka_metadata_destroy(md);
        md = NULL;
        usleep(100000);
    }
    int rc = BSF_KAFKA_TOPICS_OK;
    if (e) {
        snprintf(err, err_cap, "metadata of topic %s: %s", topic, rd_kafka_err2str(e));
        rc = BSF_KAFKA_TOPICS_UNREACHABLE;
    } else if (md->topic_cnt != 1 || md->topics[0].err) {
        snprintf(err, err_cap, "topic %s does not exist (%s)", topic,
                 md->topic_cnt ? rd_kafka_err2str(md->topics[0].err) : "no metadata");
        rc = BSF_KAFKA_TOPICS_INVALID;
    } else if (md->topics[0].partition_cnt != 1) {
        snprintf(err, err_cap,
                 "topic %s has %d partitions; the replicated log needs exactly 1 per topic",
                 topic, md->topics[0].partition_cnt);
        rc = BSF_KAFKA_TOPICS_INVALID;
    }
    if (md)
        rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    return rc;
}

static int check_config(rd_kafka_t *rk, const char *topic, const bsf_kafka_topic_spec_t *spec,
                        int timeout_ms, char *err, size_t err_cap)
{
    char why[256];
    rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic);
    rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
    rd_kafka_AdminOptions_t *opt =
        rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
    rd_kafka_AdminOptions_set_request_timeout(opt, timeout_ms, why, sizeof why);
    rd_kafka_DescribeConfigs(rk, &res, 1, opt, queue);
    rd_kafka_event_t *ev = wait_result(queue, timeout_ms + 1000);
    int rc = BSF_KAFKA_TOPICS_OK;
    if (!ev || rd_kafka_event_error(ev)) {
        snprintf(err, err_cap, "settings of topic %s: %s", topic,
                 ev ? rd_kafka_event_error_string(ev) : "no answer");
        rc = BSF_KAFKA_TOPICS_UNREACHABLE;
    } else {
        size_t cnt, ncfg = 0;
        const rd_kafka_ConfigResource_t **rs =
            rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev),
                                                      &cnt);
        const rd_kafka_ConfigEntry_t **cfg =
            cnt ? rd_kafka_ConfigResource_configs(rs[0], &ncfg) : NULL;
        for (size_t i = 0; i < ncfg; i++) {
            const char *name = rd_kafka_ConfigEntry_name(cfg[i]);
            const char *value = rd_kafka_ConfigEntry_value(cfg[i]);
            if (!value)
                continue;
            if (strcmp(name, "cleanup.policy") == 0 && strstr(value, "compact")) {
                snprintf(err, err_cap,
                         "topic %s has cleanup.policy=%s; compaction would delete history "
                         "(the log needs cleanup.policy=delete)",
                         topic, value);
                rc = BSF_KAFKA_TOPICS_INVALID;
            } else if (strcmp(name, "retention.ms") == 0 &&
                       strtoll(value, NULL, 10) != spec->retention_ms) {
                BSF_WARN("replication",
                         "topic %s keeps events for retention.ms=%s (configured: %lld); a site "
                         "bootstrapping from the log needs every event it has not seen",
                         topic, value, (long long)spec->retention_ms);
            } else if (strcmp(name, "min.insync.replicas") == 0 && atoi(value) < 2) {
                BSF_DEBUG("replication",
                         "topic %s: min.insync.replicas=%s (production: 2 with replication "
                         "factor 3)",
                         topic, value);
            }
        }
    }
    if (ev)
        rd_kafka_event_destroy(ev);
    rd_kafka_AdminOptions_destroy(opt);
    rd_kafka_queue_destroy(queue);
    rd_kafka_ConfigResource_destroy(res);
    return rc;
}

int bsf_kafka_topics_ensure(rd_kafka_t *rk, const char *const *topics, size_t n,
                            const bsf_kafka_topic_spec_t *spec, int timeout_ms, char *err,
                            size_t err_cap)
{
    int rc = spec->create ? create_missing(rk, topics, n, spec, timeout_ms, err, err_cap)
                          : BSF_KAFKA_TOPICS_OK;
    for (size_t i = 0; i < n && rc == BSF_KAFKA_TOPICS_OK; i++) {
        rc = check_partitions(rk, topics[i], spec->create, timeout_ms, err, err_cap);
        if (rc == BSF_KAFKA_TOPICS_OK)
            rc = check_config(rk, topics[i], spec, timeout_ms, err, err_cap);
    }
    return rc;
}
