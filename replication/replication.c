#include "replication/replication.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/metrics_text.h"
#include "core/hlc.h"
#include "replication/applier.h"
#include "replication/kafka_conf.h"
#include "replication/kafka_topics.h"
#include "replication/shipper.h"

#define START_PROBE_MS 5000

struct bsf_replication {
    bsf_replication_settings_t cfg;
    uint16_t site;
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_shipper_t *shipper;
    bsf_applier_t *applier;
};

/* ---- engine hooks ------------------------------------------------------------------------- */

static int before_commit(void *ctx, MDB_txn *txn, uint64_t first_seq, uint64_t last_seq,
                         bsf_problem_t *problem)
{
    bsf_replication_t *r = ctx;
    return bsf_shipper_before_commit(r->shipper, txn, first_seq, last_seq, problem);
}

/* Nothing unshipped leaves the log (log.retention): the shipper's position. */
static uint64_t trim_limit(void *ctx)
{
    bsf_replication_t *r = ctx;
    return bsf_shipper_shipped_position(r->shipper);
}

static void after_commit(void *ctx, bool committed)
{
    bsf_replication_t *r = ctx;
    bsf_shipper_after_commit(r->shipper, committed);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int bsf_replication_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                           bsf_store_t *store, bsf_engine_config_t *engine_cfg,
                           bsf_replication_t **out, char *err, size_t err_cap)
{
    *out = NULL;
    if (settings->backend != BSF_LOG_BACKEND_KAFKA)
        return 0;
    bsf_replication_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    r->cfg = *settings;
    r->site = site_id;
    r->store = store;
    if (bsf_shipper_create(settings, site_id, store, &r->shipper, err, err_cap) ||
        bsf_applier_create(settings, site_id, store, &r->applier, err, err_cap)) {
        bsf_replication_destroy(r);
        return -1;
    }
    engine_cfg->hooks.ctx = r;
    engine_cfg->hooks.before_commit = before_commit;
    engine_cfg->hooks.after_commit = after_commit;
    engine_cfg->hooks.trim_limit = trim_limit;
    *out = r;
    return 0;
}

/* The topic list: the produce topic first, then the consumed ones not already listed. */
static size_t topic_list(const bsf_replication_settings_t *s, const char **out,
                         char names[][BSF_KAFKA_TOPIC_MAX + 1], size_t cap)
{
    size_t n = 0;
    snprintf(names[n], sizeof names[0], "%s", s->topic);
    out[n] = names[n];
    n++;
    const char *p = s->consume_topics;
    while (*p && n < cap) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(names[n], sizeof names[0], "%.*s", (int)len, p);
        bool dup = false;
        for (size_t i = 0; i < n; i++)
            dup = dup || strcmp(names[i], names[n]) == 0;
        if (len && !dup) {
            out[n] = names[n];
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    return n;
}

/* Creates and checks the topics. Returns BSF_KAFKA_TOPICS_*. */
static int ensure_topics(bsf_replication_t *r, char *err, size_t err_cap)
{
    char client_id[64];
    snprintf(client_id, sizeof client_id, "bsf-site-%u-admin", (unsigned)r->site);
    rd_kafka_conf_t *conf =
        bsf_kafka_conf_new(r->cfg.brokers, r->cfg.client_properties, client_id, NULL, err,
                           err_cap);
    if (!conf)
        return BSF_KAFKA_TOPICS_INVALID;
    char why[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, err_cap, "cannot create a Kafka client: %s", why);
        return BSF_KAFKA_TOPICS_INVALID;
    }
    const char *topics[BSF_KAFKA_MAX_TOPICS + 1];
    char names[BSF_KAFKA_MAX_TOPICS + 1][BSF_KAFKA_TOPIC_MAX + 1];
    size_t n = topic_list(&r->cfg, topics, names, BSF_KAFKA_MAX_TOPICS + 1);
    bsf_kafka_topic_spec_t spec = {
        r->cfg.create_topics, r->cfg.replication_factor, r->cfg.min_insync_replicas,
        r->cfg.retention_days ? (int64_t)r->cfg.retention_days * 86400000 : -1};
    int rc = bsf_kafka_topics_ensure(rk, topics, n, &spec, START_PROBE_MS, err, err_cap);
    rd_kafka_destroy(rk);
    return rc;
}

/* A store that has never written nor applied an event: a new or wiped site. */
static bool store_is_new(bsf_engine_t *engine, bsf_store_t *store)
{
    bsf_engine_stats_t st;
    bsf_engine_stats(engine, &st);
    return st.own_seq == 0 && store->log.last == 0;
}

int bsf_replication_start(bsf_replication_t *r, bsf_engine_t *engine, char *err, size_t err_cap)
{
    if (!r)
        return 0;
    r->engine = engine;
    bool fresh = store_is_new(engine, r->store);
    char why[512];
    int topics = ensure_topics(r, why, sizeof why);
    if (topics == BSF_KAFKA_TOPICS_INVALID) {
        snprintf(err, err_cap, "replicated log: %s", why);
        return -1;
    }
    bool reachable = topics == BSF_KAFKA_TOPICS_OK;
    if (!reachable) {
        if (fresh) {
            snprintf(err, err_cap,
                     "this store holds no event yet and Kafka (%s) cannot be reached to "
                     "bootstrap it: %s",
                     r->cfg.brokers, why);
            return -1;
        }
        BSF_WARN("replication", "Kafka not reachable at start (%s): serving from the local "
                 "store, replicating once it is back", why);
    }
    if (bsf_shipper_start(r->shipper, engine, reachable ? START_PROBE_MS * 2 : 0, err,
                          err_cap) ||
        bsf_applier_start(r->applier, engine, err, err_cap))
        return -1;
    if (reachable && r->cfg.catchup_timeout_ms) {
        uint64_t t0 = bsf_clock_mono_ns();
        bool caught_up = bsf_applier_wait_caught_up(r->applier, (int)r->cfg.catchup_timeout_ms);
        bsf_applier_stats_t st;
        bsf_applier_stats(r->applier, &st);
        if (!caught_up && fresh) {
            snprintf(err, err_cap, "could not bootstrap from the replicated log within %u ms",
                     r->cfg.catchup_timeout_ms);
            return -1;
        }
        BSF_INFO("replication", "%s the replicated log in %.1f s (%" PRIu64
                 " events applied)",
                 caught_up ? "caught up with" : "still behind", 
                 (double)(bsf_clock_mono_ns() - t0) / 1e9, st.applied);
    }
    return 0;
}

void bsf_replication_stop(bsf_replication_t *r)
{
    if (!r)
        return;
    bsf_applier_stop(r->applier);
    bsf_shipper_stop(r->shipper);
}

void bsf_replication_destroy(bsf_replication_t *r)
{
    if (!r)
        return;
    bsf_applier_destroy(r->applier);
    bsf_shipper_destroy(r->shipper);
    free(r);
}

/* ---- metrics ------------------------------------------------------------------------------ */

/* The label set source_site="<site>" of a sample, in buf. */
static const char *site_label(char *buf, size_t cap, unsigned site)
{
    snprintf(buf, cap, "source_site=\"%u\"", site);
    return buf;
}

static void write_site_lag(bsf_replication_t *r, const bsf_applier_stats_t *a, bsf_text_t *out)
{
    uint64_t now = bsf_clock_wall_ms();
    char label[32];
    bsf_metrics_family(out, "bsf_replication_lag_events", "gauge",
                       "Events of a source site's topic not applied here yet.");
    for (size_t i = 0; i < a->n_sites; i++) {
        const bsf_applier_site_t *s = &a->sites[i];
        if (s->site == r->site)
            continue;
        int64_t lag = 0;
        if (s->topic < a->n_topics && !a->topics[s->topic].at_end && a->topics[s->topic].high >= 0)
            lag = a->topics[s->topic].high - (int64_t)a->topics[s->topic].position;
        bsf_metrics_u64(out, "bsf_replication_lag_events",
                        site_label(label, sizeof label, s->site), lag > 0 ? (uint64_t)lag : 0);
    }
    bsf_metrics_family(out, "bsf_replication_lag_seconds", "gauge",
                       "Age of the last applied event of a source site while its topic has "
                       "events not applied yet (0 when caught up).");
    for (size_t i = 0; i < a->n_sites; i++) {
        const bsf_applier_site_t *s = &a->sites[i];
        if (s->site == r->site)
            continue;
        bool behind = s->topic < a->n_topics && !a->topics[s->topic].at_end;
        uint64_t at = BSF_HLC_MS(s->last_hlc);
        uint64_t lag_ms = behind && s->last_hlc && now > at ? now - at : 0;
        bsf_metrics_double(out, "bsf_replication_lag_seconds",
                           site_label(label, sizeof label, s->site), 3, (double)lag_ms / 1e3);
    }
    bsf_metrics_family(out, "bsf_replication_applied_events_total", "counter",
                       "Events of other sites applied here.");
    for (size_t i = 0; i < a->n_sites; i++)
        bsf_metrics_u64(out, "bsf_replication_applied_events_total",
                        site_label(label, sizeof label, a->sites[i].site), a->sites[i].applied);
}

static void write_topics(bsf_replication_t *r, const bsf_applier_stats_t *a, bsf_text_t *out)
{
    bsf_metrics_family(out, "bsf_replication_topic_lag_events", "gauge",
                       "Events of a topic not applied here yet.");
    for (size_t t = 0; t < a->n_topics; t++) {
        int64_t lag = a->topics[t].at_end || a->topics[t].high < 0
                          ? 0
                          : a->topics[t].high - (int64_t)a->topics[t].position;
        bsf_metrics_u64_label(out, "bsf_replication_topic_lag_events", "topic",
                              bsf_applier_topic(r->applier, t), lag > 0 ? (uint64_t)lag : 0);
    }
    bsf_metrics_family(out, "bsf_replication_topic_position", "gauge", "Next offset to apply.");
    for (size_t t = 0; t < a->n_topics; t++)
        bsf_metrics_u64_label(out, "bsf_replication_topic_position", "topic",
                              bsf_applier_topic(r->applier, t), a->topics[t].position);
}

static void write_held(bsf_replication_t *r, const bsf_applier_stats_t *a, bsf_text_t *out)
{
    bsf_metrics_family(out, "bsf_replication_topic_held_version", "gauge",
                       "Version of the event a topic is held at (newer than this release reads; "
                       "nothing of the topic applied from there), 0 when not held.");
    for (size_t t = 0; t < a->n_topics; t++)
        bsf_metrics_u64_label(out, "bsf_replication_topic_held_version", "topic",
                              bsf_applier_topic(r->applier, t), a->topics[t].held_version);
}

/* A histogram whose bounds are milliseconds with a 0 (+Inf) last, as applier.h and shipper.h
 * define them; n_buckets counts the +Inf one and is at most MS_HISTOGRAM_MAX (each caller
 * asserts it). */
#define MS_HISTOGRAM_MAX BSF_APPLIER_DELAY_BUCKETS
static void write_ms_histogram(bsf_text_t *out, const char *name, const unsigned *bounds_ms,
                               size_t n_buckets, const uint64_t *counts, double sum,
                               int sum_decimals, uint64_t count)
{
    double bounds[MS_HISTOGRAM_MAX];
    size_t n = 0;
    while (n + 1 < n_buckets && n < sizeof bounds / sizeof bounds[0] && bounds_ms[n]) {
        bounds[n] = bounds_ms[n] / 1e3;
        n++;
    }
    bsf_metrics_histogram(out, &(bsf_metrics_histogram_t){.name = name, .bounds = bounds,
                                                          .n_bounds = n, .counts = counts,
                                                          .sum = sum,
                                                          .sum_decimals = sum_decimals,
                                                          .count = count});
}

static void write_delay(const bsf_applier_stats_t *a, bsf_text_t *out)
{
    static const unsigned bounds[BSF_APPLIER_DELAY_BUCKETS] = BSF_APPLIER_DELAY_BUCKETS_MS;
    bsf_metrics_family(out, "bsf_replication_apply_delay_seconds", "histogram",
                       "Time from an event's HLC at its site to its commit here.");
    write_ms_histogram(out, "bsf_replication_apply_delay_seconds", bounds,
                       BSF_APPLIER_DELAY_BUCKETS, a->delay_buckets, (double)a->delay_sum_ms / 1e3,
                       3, a->delay_count);
}

static void write_shipper(bsf_replication_t *r, bsf_text_t *out)
{
    static const unsigned bounds[] = BSF_SHIPPER_TXN_BUCKETS_MS;
    _Static_assert(sizeof bounds / sizeof bounds[0] <= MS_HISTOGRAM_MAX, "bounds too long");
    bsf_shipper_stats_t s;
    bsf_engine_stats_t e;
    bsf_shipper_stats(r->shipper, &s);
    bsf_engine_stats(r->engine, &e);
    uint64_t backlog = e.own_seq > s.shipped_seq ? e.own_seq - s.shipped_seq : 0;
    const bsf_metric_row_t head[] = {
        {"bsf_replication_shipper_backlog_events", "gauge",
         "Events of this site in the local log that Kafka has not acknowledged yet.", backlog},
        {"bsf_replication_shipped_seq", "gauge",
         "Highest sequence number of this site in Kafka.", s.shipped_seq},
        {"bsf_replication_shipper_connected", "gauge", "1 when the producer is ready.",
         s.connected ? 1 : 0},
        {"bsf_replication_shipped_events_total", "counter",
         "Events of this site Kafka acknowledged.", s.shipped_events},
    };
    BSF_METRICS_ROWS(out, head);
    bsf_metrics_family(out, "bsf_replication_kafka_transactions_total", "counter",
                       "Shipping transactions, by result.");
    bsf_metrics_u64_label(out, "bsf_replication_kafka_transactions_total", "result", "committed",
                          s.transactions);
    bsf_metrics_u64_label(out, "bsf_replication_kafka_transactions_total", "result", "aborted",
                          s.aborted_transactions);
    const bsf_metric_row_t tail[] = {
        {"bsf_replication_producer_errors_total", "counter", "Failed shipping attempts.",
         s.failures},
        {"bsf_replication_producer_connects_total", "counter",
         "Producers created (one more after each fatal error or outage).", s.connects},
        {"bsf_replication_refused_writes_total", "counter",
         "durability=replicated: batches refused because Kafka did not take them, or the site "
         "was behind its own events.",
         s.refused_batches},
        {"bsf_replication_own_seq_floor", "gauge",
         "Sequence number this site's store must reach before it writes again.", e.seq_floor},
    };
    BSF_METRICS_ROWS(out, tail);
    bsf_metrics_family(out, "bsf_replication_kafka_transaction_seconds", "histogram",
                       "Duration of a shipping transaction (produce and commit).");
    write_ms_histogram(out, "bsf_replication_kafka_transaction_seconds", bounds,
                       sizeof bounds / sizeof bounds[0], s.txn_buckets,
                       (double)s.txn_ns_total / 1e9, 6, s.transactions);
}

void bsf_replication_health(bsf_replication_t *r, unsigned *healthy, unsigned *links)
{
    *healthy = *links = 0;
    if (!r)
        return;
    if (r->shipper) {
        bsf_shipper_stats_t ss;
        bsf_shipper_stats(r->shipper, &ss);
        *links += 1;
        *healthy += ss.connected;
    }
    if (r->applier) {
        bsf_applier_stats_t as;
        bsf_applier_stats(r->applier, &as);
        for (size_t t = 0; t < as.n_topics; t++) {
            *links += 1;
            *healthy += as.topics[t].high >= 0;
        }
    }
}

size_t bsf_replication_held(bsf_replication_t *r, bsf_replication_hold_t *out, size_t cap)
{
    if (!r || !r->applier)
        return 0;
    bsf_applier_stats_t *a = malloc(sizeof *a);
    if (!a)
        return 0;
    bsf_applier_stats(r->applier, a);
    size_t n = 0;
    for (size_t t = 0; t < a->n_topics && n < cap; t++) {
        if (!a->topics[t].held_version)
            continue;
        snprintf(out[n].topic, sizeof out[n].topic, "%s", bsf_applier_topic(r->applier, t));
        out[n].offset = a->topics[t].held_offset;
        out[n].version = a->topics[t].held_version;
        n++;
    }
    free(a);
    return n;
}

void bsf_replication_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_replication_t *r = ctx;
    if (!r || !r->engine)
        return;
    bsf_applier_stats_t *a = malloc(sizeof *a);
    if (!a)
        return;
    bsf_applier_stats(r->applier, a);
    write_shipper(r, out);
    write_site_lag(r, a, out);
    write_topics(r, a, out);
    write_held(r, a, out);
    write_delay(a, out);
    const bsf_metric_row_t rows[] = {
        {"bsf_replication_caught_up", "gauge",
         "1 when every topic is read to its end and applied.", a->caught_up ? 1 : 0},
        {"bsf_replication_skipped_events_total", "counter",
         "Events read again (already applied) and skipped.", a->skipped},
        {"bsf_replication_bad_events_total", "counter",
         "Messages of the log that hold no readable event (skipped).", a->bad_events},
        {"bsf_replication_consumer_errors_total", "counter", "Errors of the Kafka consumer.",
         a->consumer_errors},
        {"bsf_replication_apply_refused_total", "counter",
         "Events of other sites the store refused to apply.", a->refused},
        {"bsf_replication_collisions_resolved_total", "counter",
         "Bindings of this site deregistered because a newer colliding registration came from "
         "another site.",
         a->replaced},
        {"bsf_replication_collisions_held_total", "counter",
         "Colliding registrations of another site kept waiting for the older binding's events.",
         a->replace_held},
    };
    BSF_METRICS_ROWS(out, rows);
    free(a);
}
