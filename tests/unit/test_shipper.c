/* Fault injection on the shipper with librdkafka's mock cluster (in addition to the real
 * broker of the integration tests): retriable produce errors, a fatal producer error (the
 * producer is replaced), a broker outage, a restart on the same store, and
 * durability=replicated refusing writes while the broker is down. After each, the topic
 * holds this site's events 1..N exactly once. */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "replication/kafka_reader.h"
#include "replication/kafka_topics.h"
#include "replication/shipper.h"
#include "tests/unit/test_util.h"

/* Kafka protocol API keys (not in librdkafka's public headers). */
#define API_PRODUCE 0
#define API_END_TXN 26

typedef struct {
    rd_kafka_t *mrk;
    rd_kafka_mock_cluster_t *mc;
    char dir[64];
    bsf_replication_settings_t settings;
    bsf_store_t store;
    bsf_engine_t *engine;
    bsf_shipper_t *shipper;
    msgpack_sbuffer json;
    unsigned next_ue;
} fx_t;

static void start_site(fx_t *f)
{
    char err[512];
    tu_store_open(&f->store, f->dir, 64);
    if (bsf_shipper_create(&f->settings, 1, &f->store, &f->shipper, err, sizeof err))
        fail_msg("%s", err);
    bsf_engine_config_t ec = {.site_id = 1,
                              .collision_detection = true,
                              .max_batch = 64,
                              .queue_capacity = 1024,
                              .hooks = {.ctx = f->shipper,
                                        .before_commit = bsf_shipper_before_commit,
                                        .after_commit = bsf_shipper_after_commit}};
    if (bsf_engine_create(&f->store, &ec, &f->engine, err, sizeof err) ||
        bsf_engine_start(f->engine) ||
        bsf_shipper_start(f->shipper, f->engine, 10000, err, sizeof err))
        fail_msg("%s", err);
}

static void stop_site(fx_t *f)
{
    bsf_engine_stop(f->engine);
    bsf_shipper_stop(f->shipper);
    bsf_engine_destroy(f->engine);
    bsf_shipper_destroy(f->shipper);
    bsf_store_close(&f->store);
}

static fx_t *fixture(bsf_durability_t durability)
{
    fx_t *f = calloc(1, sizeof *f);
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    f->mrk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    assert_non_null(f->mrk);
    f->mc = rd_kafka_mock_cluster_new(f->mrk, 1);
    assert_non_null(f->mc);
    assert_int_equal(rd_kafka_mock_topic_create(f->mc, "bsf.events.1", 1, 1), 0);
    snprintf(f->dir, sizeof f->dir, "/tmp/bsf-test-shipper-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    bsf_replication_settings_t *s = &f->settings;
    s->backend = BSF_LOG_BACKEND_KAFKA;
    s->durability = durability;
    snprintf(s->brokers, sizeof s->brokers, "%s", rd_kafka_mock_cluster_bootstraps(f->mc));
    snprintf(s->topic, sizeof s->topic, "bsf.events.1");
    snprintf(s->consume_topics, sizeof s->consume_topics, "bsf.events.1");
    snprintf(s->transactional_id, sizeof s->transactional_id, "bsf-site-1");
    s->linger_ms = 1;
    s->ship_interval_ms = 3;
    s->transaction_timeout_ms = 10000;
    s->replicated_timeout_ms = 1500;
    s->ship_batch = 16;
    s->apply_batch = 100;
    s->apply_inflight = 2;
    s->shutdown_timeout_ms = 5000;
    msgpack_sbuffer_init(&f->json);
    start_site(f);
    return f;
}

static void fixture_free(fx_t *f)
{
    stop_site(f);
    assert_int_equal(tu_dir_remove(f->dir), 0);
    msgpack_sbuffer_destroy(&f->json);
    rd_kafka_mock_cluster_destroy(f->mc);
    rd_kafka_destroy(f->mrk);
    free(f);
}

/* Registers one binding; returns the command's status. */
static bsf_command_status_t register_one(fx_t *f)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_REGISTER);
    char json[512];
    unsigned n = ++f->next_ue;
    snprintf(json, sizeof json,
             "{\"supi\":\"imsi-00101%010u\",\"ipv4Addr\":\"10.9.%u.%u\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"pcf1.example.com\"}",
             n, n >> 8 & 255, n & 255);
    msgpack_object o = tu_json(json, &f->json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_binding_decode(&o, &cmd->zone, &cmd->binding, &p), 0);
    tu_engine_run(f->engine, cmd);
    bsf_command_status_t status = cmd->status;
    bsf_command_free(cmd);
    return status;
}

/* `n` registrations, each of which must succeed. */
static void register_ok(fx_t *f, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(register_one(f), BSF_CMD_OK);
}

static void wait_shipped(fx_t *f, uint64_t seq)
{
    uint64_t deadline = bsf_clock_mono_ns() + 30000000000ull;
    bsf_shipper_stats_t st;
    for (;;) {
        bsf_shipper_stats(f->shipper, &st);
        if (st.shipped_seq >= seq)
            return;
        if (bsf_clock_mono_ns() > deadline)
            fail_msg("shipped up to %llu, expected %llu", (unsigned long long)st.shipped_seq,
                     (unsigned long long)seq);
        usleep(20000);
    }
}

/* The topic (read_committed) holds this site's events 1..n, each once. */
static void assert_topic_exact(fx_t *f, uint64_t n)
{
    const char *topics[1] = {"bsf.events.1"};
    bsf_kafka_reader_t *r;
    char err[512];
    assert_int_equal(bsf_kafka_reader_new(f->settings.brokers, NULL, "test-reader", topics, 1, &r,
                                          err, sizeof err),
                     0);
    int64_t start = BSF_KAFKA_FROM_BEGINNING;
    assert_int_equal(bsf_kafka_reader_assign(r, &start, err, sizeof err), 0);
    uint8_t *seen = calloc(n + 1, 1);
    uint64_t count = 0, deadline = bsf_clock_mono_ns() + 20000000000ull;
    while (!bsf_kafka_reader_at_end(r) && bsf_clock_mono_ns() < deadline) {
        rd_kafka_message_t *m = bsf_kafka_reader_next(r, 100);
        if (!m)
            continue;
        if (!m->err) {
            bsf_event_t ev;
            assert_int_equal(bsf_event_decode_envelope(m->payload, m->len, &ev), 0);
            assert_int_equal(ev.site, 1);
            if (ev.seq < 1 || ev.seq > n)
                fail_msg("sequence %llu in the topic, expected 1..%llu",
                         (unsigned long long)ev.seq, (unsigned long long)n);
            if (seen[ev.seq]++)
                fail_msg("sequence %llu twice in the topic", (unsigned long long)ev.seq);
            count++;
        }
        rd_kafka_message_destroy(m);
    }
    assert_true(bsf_kafka_reader_at_end(r));
    assert_int_equal(count, n);
    free(seen);
    bsf_kafka_reader_free(r);
}

static void test_local_faults(void **state)
{
    (void)state;
    fx_t *f = fixture(BSF_DURABILITY_LOCAL);
    register_ok(f, 40);
    wait_shipped(f, 40);
    assert_topic_exact(f, 40);

    /* retriable produce errors: retried by the idempotent producer */
    rd_kafka_mock_push_request_errors(f->mc, API_PRODUCE, 3,
                                      RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                                      RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                                      RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION);
    register_ok(f, 20);
    wait_shipped(f, 60);
    assert_topic_exact(f, 60);

    /* a fatal error at commit: the producer is replaced, the position re-read from Kafka */
    bsf_shipper_stats_t before, after;
    bsf_shipper_stats(f->shipper, &before);
    rd_kafka_mock_push_request_errors(f->mc, API_END_TXN, 1, RD_KAFKA_RESP_ERR_PRODUCER_FENCED);
    register_ok(f, 20);
    wait_shipped(f, 80);
    bsf_shipper_stats(f->shipper, &after);
    assert_true(after.connects > before.connects);
    assert_true(after.failures > before.failures);
    assert_topic_exact(f, 80);

    /* a broker outage: writes go on, shipped once it is back */
    rd_kafka_mock_broker_set_down(f->mc, 1);
    register_ok(f, 20);
    usleep(500000);
    rd_kafka_mock_broker_set_up(f->mc, 1);
    wait_shipped(f, 100);
    assert_topic_exact(f, 100);

    /* a restart on the same store: nothing shipped twice, the rest shipped */
    stop_site(f);
    start_site(f);
    register_ok(f, 10);
    wait_shipped(f, 110);
    assert_topic_exact(f, 110);
    fixture_free(f);
}

static void test_replicated_refuses_while_down(void **state)
{
    (void)state;
    fx_t *f = fixture(BSF_DURABILITY_REPLICATED);
    register_ok(f, 10);
    bsf_shipper_stats_t st;
    bsf_shipper_stats(f->shipper, &st);
    assert_int_equal(st.shipped_seq, 10); /* shipped before the answer */

    rd_kafka_mock_broker_set_down(f->mc, 1);
    assert_int_equal(register_one(f), BSF_CMD_FAILED);
    assert_int_equal(register_one(f), BSF_CMD_FAILED);
    rd_kafka_mock_broker_set_up(f->mc, 1);
    uint64_t deadline = bsf_clock_mono_ns() + 30000000000ull;
    while (register_one(f) != BSF_CMD_OK) {
        assert_true(bsf_clock_mono_ns() < deadline);
        usleep(100000);
    }
    bsf_shipper_stats(f->shipper, &st);
    assert_true(st.refused_batches >= 2);
    bsf_engine_stats_t es;
    bsf_engine_stats(f->engine, &es);
    /* the refused writes used no sequence number: the topic holds exactly the store's */
    assert_int_equal(st.shipped_seq, es.own_seq);
    assert_topic_exact(f, es.own_seq);
    fixture_free(f);
}

/* A topic with several partitions cannot hold the log (one site's events in one order). */
static void test_topic_layout_checked(void **state)
{
    (void)state;
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *mrk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(mrk, 1);
    assert_int_equal(rd_kafka_mock_topic_create(mc, "three", 3, 1), 0);
    conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mc), err,
                      sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    const char *topics[] = {"three"};
    bsf_kafka_topic_spec_t spec = {false, 0, 0, -1};
    assert_int_equal(bsf_kafka_topics_ensure(rk, topics, 1, &spec, 5000, err, sizeof err),
                     BSF_KAFKA_TOPICS_INVALID);
    assert_non_null(strstr(err, "3 partitions"));
    rd_kafka_destroy(rk);
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(mrk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topic_layout_checked),
        cmocka_unit_test(test_local_faults),
        cmocka_unit_test(test_replicated_refuses_while_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
