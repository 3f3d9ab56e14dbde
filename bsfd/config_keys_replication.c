/* Configuration keys of the log backend and the replication between sites (Kafka). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"
#include "common/name_chars.h"
#include "common/text_list.h"

static const char *const backend_choices[] = {"embedded", "kafka", NULL};
static const char *const durability_choices[] = {"local", "replicated", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_ENUM_KEY("log.backend", replication.backend, "embedded", backend_choices,
        "Where events are logged: `embedded` (the store's LMDB log only, one site) or `kafka` "
        "(the local log is an outbox shipped to Kafka, and the other sites' events are applied "
        "from it; see docs/replication.md)."),
    BSF_CFG_ENUM_KEY("log.durability", replication.durability, "local", durability_choices,
        "With `log.backend = kafka`: answer a write after the local commit and ship it "
        "asynchronously (`local`), or only after Kafka committed its events (`replicated`; a "
        "write Kafka does not take within `kafka.replicated_timeout_ms` gets 503 and has no "
        "effect)."),
    BSF_CFG_STRING_KEY("kafka.brokers", replication.brokers, "", 511,
        "Kafka bootstrap servers, `host:port[,host:port...]`; needed by `log.backend = kafka`."),
    BSF_CFG_STRING_KEY("kafka.topic", replication.topic, "", BSF_KAFKA_TOPIC_MAX,
        "Topic this site produces its events to; empty = `bsf.events.<site.id>`. Sites sharing "
        "one stretched cluster may also share one topic."),
    BSF_CFG_LIST_KEY("kafka.consume_topics", replication.consume_topics, "", 4095,
        "Topics whose events this site applies (every site's topic, its own included, so that a "
        "new or wiped site bootstraps from it); empty = `kafka.topic` only. At most 16."),
    BSF_CFG_BOOL_KEY("kafka.create_topics", replication.create_topics, "true",
        "Create missing topics at start (1 partition, `cleanup.policy=delete`, the retention and "
        "replication settings below). The settings of existing topics are checked either way."),
    BSF_CFG_UINT_KEY("kafka.replication_factor", replication.replication_factor, "0", 0, 32,
        "Replication factor of topics the BSF creates; 0 = the broker's default (production: 3)."),
    BSF_CFG_UINT_KEY("kafka.min_insync_replicas", replication.min_insync_replicas, "0", 0, 32,
        "`min.insync.replicas` of topics the BSF creates; 0 = the broker's default (production: "
        "2)."),
    BSF_CFG_UINT_KEY("kafka.retention_days", replication.retention_days, "0", 0, 36500,
        "Retention of topics the BSF creates; 0 = keep every event forever (`retention.ms=-1`)."),
    BSF_CFG_STRING_KEY("kafka.transactional_id", replication.transactional_id, "", 127,
        "Transactional id of the site's producer (stable per site, unique among sites); empty = "
        "`bsf-site-<site.id>`. A second process with the same id fences the first."),
    BSF_CFG_LIST_KEY("kafka.client_properties", replication.client_properties, "", 2047,
        "Extra librdkafka properties `name=value` for every Kafka client (security, timeouts)."),
    BSF_CFG_UINT_KEY("kafka.linger_ms", replication.linger_ms, "1", 0, 1000,
        "Producer `linger.ms`: how long events wait to be batched into one request."),
    BSF_CFG_UINT_KEY("kafka.ship_interval_ms", replication.ship_interval_ms, "3", 0, 1000,
        "`log.durability = local`: pause between two shipping transactions. Longer: fewer, "
        "larger transactions (librdkafka spends about 2-3 ms of CPU on each), more replication "
        "lag. Below about 3 ms the next transaction often waits 20 ms for the previous one's "
        "markers."),
    BSF_CFG_UINT_KEY("kafka.transaction_timeout_ms", replication.transaction_timeout_ms, "10000",
        1000, 900000,
        "Producer `transaction.timeout.ms`: the broker aborts a transaction of a dead producer "
        "after this; consumers of its topic wait that long at most."),
    BSF_CFG_UINT_KEY("kafka.replicated_timeout_ms", replication.replicated_timeout_ms, "2000", 100,
        600000,
        "`log.durability = replicated`: longest time a write batch waits for Kafka before its "
        "writes get 503; must be below `kafka.transaction_timeout_ms`."),
    BSF_CFG_UINT_KEY("kafka.ship_batch", replication.ship_batch, "10000", 1, 1000000,
        "Most events the shipper puts in one Kafka transaction."),
    BSF_CFG_UINT_KEY("kafka.apply_batch", replication.apply_batch, "2000", 1, 100000,
        "Most events of other sites applied in one engine command."),
    BSF_CFG_UINT_KEY("kafka.apply_inflight", replication.apply_inflight, "4", 1, 64,
        "Apply commands queued at the engine at once (flow control of the consumer)."),
    BSF_CFG_UINT_KEY("kafka.catchup_timeout_ms", replication.catchup_timeout_ms, "30000", 0,
        3600000,
        "At start, how long to apply the log's tail before serving; 0 = serve at once. A store "
        "that has never written or applied an event must catch up, or bsfd exits."),
    BSF_CFG_UINT_KEY("kafka.shutdown_timeout_ms", replication.shutdown_timeout_ms, "5000", 0,
        600000,
        "At stop, how long to keep shipping what is left (the rest is shipped at the next start)."),
};

static bool topic_name_ok(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > BSF_KAFKA_TOPIC_MAX || strcmp(t, ".") == 0 || strcmp(t, "..") == 0)
        return false;
    return bsf_name_chars_only(t, n);
}

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    bsf_replication_settings_t *r = &cfg->replication;
    if (r->backend != BSF_LOG_BACKEND_KAFKA) {
        if (r->durability == BSF_DURABILITY_REPLICATED) {
            snprintf(err, err_cap, "log.durability: 'replicated' needs log.backend = kafka");
            return -1;
        }
        return 0;
    }
    if (!r->brokers[0]) {
        snprintf(err, err_cap, "kafka.brokers: needed by log.backend = kafka");
        return -1;
    }
    if (!r->topic[0])
        snprintf(r->topic, sizeof r->topic, "bsf.events.%u", (unsigned)cfg->site_id);
    if (!topic_name_ok(r->topic)) {
        snprintf(err, err_cap, "kafka.topic: '%s' is not a valid topic name ([A-Za-z0-9._-])",
                 r->topic);
        return -1;
    }
    if (!r->consume_topics[0])
        snprintf(r->consume_topics, sizeof r->consume_topics, "%s", r->topic);
    const char *cursor = r->consume_topics;
    char item[1024];
    unsigned n = 0;
    bool own = false;
    while (bsf_text_list_next(&cursor, item, sizeof item, NULL)) {
        own = own || strcmp(item, r->topic) == 0;
        if (!topic_name_ok(item)) {
            snprintf(err, err_cap, "kafka.consume_topics: '%s' is not a valid topic name", item);
            return -1;
        }
        if (++n > BSF_KAFKA_MAX_TOPICS) {
            snprintf(err, err_cap, "kafka.consume_topics: more than %d topics",
                     BSF_KAFKA_MAX_TOPICS);
            return -1;
        }
    }
    if (!own) {
        snprintf(err, err_cap,
                 "kafka.consume_topics: must include this site's own topic %s (a store catches "
                 "up with its own events from it)",
                 r->topic);
        return -1;
    }
    cursor = r->client_properties;
    while (bsf_text_list_next(&cursor, item, sizeof item, NULL))
        if (!strchr(item, '=') || item[0] == '=') {
            snprintf(err, err_cap, "kafka.client_properties: '%s' is not name=value", item);
            return -1;
        }
    if (!r->transactional_id[0])
        snprintf(r->transactional_id, sizeof r->transactional_id, "bsf-site-%u",
                 (unsigned)cfg->site_id);
    if (r->replicated_timeout_ms >= r->transaction_timeout_ms) {
        snprintf(err, err_cap,
                 "kafka.replicated_timeout_ms: %u must be below kafka.transaction_timeout_ms (%u)",
                 r->replicated_timeout_ms, r->transaction_timeout_ms);
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_replication_section = {keys, sizeof keys / sizeof keys[0],
                                                             finish};
