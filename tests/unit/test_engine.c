/* The engine's side of replication on a real LMDB store: BSF_CMD_APPLY (events applied once
 * by site and sequence number, consumer positions stored with them, gaps refused), a store
 * catching up with its own events, the sequence floor, cross-site collisions resolved by
 * the owner, and the log backend's hooks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "core/hlc.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "tests/unit/test_util.h"

typedef struct {
    char dir[64];
    bsf_store_t store;
    bsf_engine_t *engine;
    msgpack_sbuffer json;
    msgpack_zone zone;
    msgpack_sbuffer enc[16];
    int hook_calls;
    uint64_t hook_first, hook_last;
    int hook_answer;
} fx_t;

static int before_commit(void *ctx, MDB_txn *txn, uint64_t first, uint64_t last,
                         bsf_problem_t *problem)
{
    (void)txn;
    fx_t *f = ctx;
    f->hook_calls++;
    f->hook_first = first;
    f->hook_last = last;
    if (f->hook_answer == BSF_ENGINE_HOOK_REFUSE)
        bsf_problem_set(problem, BSF_CAUSE_NF_CONGESTION, "log unreachable");
    return f->hook_answer;
}

static int open_engine(fx_t *f, uint16_t site)
{
    tu_store_open(&f->store, f->dir, 64);
    bsf_engine_config_t ec = {.site_id = site,
                              .collision_detection = true,
                              .max_batch = 64,
                              .queue_capacity = 1024,
                              .hooks = {.ctx = f, .before_commit = before_commit}};
    tu_engine_start(&f->store, &ec, &f->engine);
    return 0;
}

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/bsf-test-apply-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    msgpack_sbuffer_init(&f->json);
    msgpack_zone_init(&f->zone, 8192);
    for (int i = 0; i < 16; i++)
        msgpack_sbuffer_init(&f->enc[i]);
    open_engine(f, 1);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    tu_engine_close(f->engine, &f->store, f->dir);
    msgpack_sbuffer_destroy(&f->json);
    msgpack_zone_destroy(&f->zone);
    for (int i = 0; i < 16; i++)
        msgpack_sbuffer_destroy(&f->enc[i]);
    free(f);
    return 0;
}

static bsf_pcf_binding_t *binding(fx_t *f, const char *pcf, const char *ipv4)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"supi\":\"imsi-001010000000009\",\"ipv4Addr\":\"%s\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1,\"sd\":\"000001\"},\"pcfFqdn\":\"%s\"}",
             ipv4, pcf);
    return tu_binding(json, &f->json, &f->zone);
}

static bsf_binding_id_t make_id(uint16_t site, uint64_t seq)
{
    bsf_binding_id_t id;
    uint8_t rnd[8] = {9, 9, 9, 9, 9, 9, 9, (uint8_t)seq};
    bsf_binding_id_make(site, seq, rnd, &id);
    return id;
}

/* An event of another site (or of this one, from the log), encoded into enc[slot]. */
static bsf_apply_event_t event(fx_t *f, int slot, bsf_event_t ev)
{
    if (ev.type == BSF_EVENT_BINDING_REGISTERED)
        ev.created_hlc = ev.hlc;
    if (ev.type != BSF_EVENT_BINDING_DEREGISTERED && !ev.origin_ts_ms)
        ev.origin_ts_ms = ev.sender_ts_ms = -1;
    msgpack_packer pk;
    msgpack_sbuffer_clear(&f->enc[slot]);
    msgpack_packer_init(&pk, &f->enc[slot], msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&ev, &pk), 0);
    bsf_apply_event_t a = {.raw = f->enc[slot].data, .len = f->enc[slot].size, .ev = ev};
    return a;
}

/* A registration of binding `id` (pcf, ipv4) at `site`, its event `seq` at `hlc`, encoded in
 * `slot`. */
static bsf_apply_event_t registered(fx_t *f, int slot, uint16_t site, uint64_t seq, uint64_t hlc,
                                    bsf_binding_id_t id, const char *pcf, const char *ipv4)
{
    return event(f, slot, (bsf_event_t){.type = BSF_EVENT_BINDING_REGISTERED, .site = site,
                                        .seq = seq, .hlc = hlc, .binding_id = id,
                                        .binding = binding(f, pcf, ipv4)});
}

static bsf_command_t *apply(fx_t *f, bsf_apply_batch_t *b)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_APPLY);
    cmd->apply = b;
    tu_engine_run(f->engine, cmd);
    return cmd;
}

static uint64_t position(fx_t *f, const char *source)
{
    MDB_txn *txn;
    uint64_t pos;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_store_load_position(&f->store, txn, source, &pos), 0);
    mdb_txn_abort(txn);
    return pos;
}

static bool live(fx_t *f, const bsf_binding_id_t *id)
{
    MDB_txn *txn;
    bsf_record_t r;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    int rc = bsf_projection_get(&f->store.proj, txn, id, &r);
    bool is_live = rc == 0 && r.state == BSF_RECORD_LIVE;
    mdb_txn_abort(txn);
    return is_live;
}

typedef struct {
    fx_t *f;
    bsf_event_t *full;
    bsf_pcf_binding_t *storage;
    bool found;
} last_event_t;

static int decode_last(void *ctx, uint64_t position, const void *event, size_t len)
{
    last_event_t *l = ctx;
    char err[128];
    (void)position;
    assert_int_equal(bsf_event_decode(event, len, &l->f->zone, l->full, l->storage, err,
                                      sizeof err),
                     0);
    l->found = true;
    return 0;
}

/* The envelope of the log's last event. */
static bsf_event_t last_event(fx_t *f, bsf_event_t *full, bsf_pcf_binding_t *storage)
{
    MDB_txn *txn;
    last_event_t last = {f, full, storage, false};
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_embedded_log_scan(&f->store.log, txn, f->store.log.last, decode_last,
                                           &last),
                     0);
    assert_true(last.found);
    mdb_txn_abort(txn);
    return *full;
}

static void test_remote_events_once_with_positions(void **state)
{
    fx_t *f = *state;
    bsf_binding_id_t a = make_id(2, 1), b = make_id(2, 3);
    uint64_t t = BSF_HLC_FROM_MS(1700000000000ULL);
    bsf_apply_event_t evs[3] = {
        registered(f, 0, 2, 1, t, a, "pcf1.example.com", "10.0.0.1"),
        event(f, 1, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = 2, .seq = 2,
                                  .hlc = t + 5, .binding_id = a, .created_hlc = t,
                                  .binding = binding(f, "pcf2.example.com", "10.0.0.1"),
                                  .origin_ts_ms = -1, .sender_ts_ms = -1}),
        registered(f, 2, 2, 3, t + 9, b, "pcf3.example.com", "10.0.0.2"),
    };
    bsf_apply_position_t pos = {"kafka/t2/0", 0, 2};
    bsf_apply_batch_t batch = {.events = evs, .n_events = 2, .positions = &pos, .n_positions = 1};
    bsf_command_t *cmd = apply(f, &batch);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.applied, 2);
    assert_true(evs[0].applied && evs[1].applied);
    assert_int_equal(position(f, "kafka/t2/0"), 2);
    assert_int_equal(f->store.log.last, 2);
    /* read again from an earlier position (and the same event from another topic): once */
    pos = (bsf_apply_position_t){"kafka/t2/0", 1, 4};
    batch.events = &evs[1];
    batch.applied = 0;
    bsf_command_reset_outcome(cmd);
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.applied, 1);
    assert_int_equal(batch.skipped, 1);
    assert_false(evs[1].applied);
    assert_true(evs[2].applied);
    assert_int_equal(position(f, "kafka/t2/0"), 4);
    assert_int_equal(f->store.log.last, 3);
    assert_true(live(f, &a) && live(f, &b));
    /* a batch that starts after the stored position: refused, nothing applied */
    pos = (bsf_apply_position_t){"kafka/t2/0", 9, 12};
    batch.n_events = 1;
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_REFUSED);
    assert_true(batch.gap);
    assert_int_equal(position(f, "kafka/t2/0"), 4);
    assert_int_equal(f->store.log.last, 3);
    /* the site's state is stored: its highest sequence number */
    MDB_txn *txn;
    uint64_t seq, hlc;
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_store_load_site_state(&f->store, txn, 2, &seq, &hlc), 0);
    mdb_txn_abort(txn);
    assert_int_equal(seq, 3);
    assert_int_equal(hlc, t + 9);
    bsf_command_free(cmd);
}

static void test_own_events_and_the_sequence_floor(void **state)
{
    fx_t *f = *state;
    /* Kafka holds this site's events 1 and 2, the store none (a wiped site) */
    bsf_engine_raise_seq_floor(f->engine, 2);
    bsf_command_t *cmd = tu_engine_register(f->engine, &f->json, "pcf1.example.com", "10.0.1.1");
    assert_int_equal(cmd->status, BSF_CMD_REFUSED);
    assert_int_equal(cmd->problem.cause, BSF_CAUSE_NF_CONGESTION);
    assert_int_equal(f->store.log.last, 0);
    bsf_command_free(cmd);

    uint64_t t = BSF_HLC_FROM_MS(bsf_clock_wall_ms());
    bsf_apply_event_t evs[2] = {
        registered(f, 0, 1, 1, t, make_id(1, 1), "pcf1.example.com", "10.0.1.2"),
        event(f, 1, (bsf_event_t){.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 1, .seq = 2,
                                  .hlc = t + 1, .binding_id = make_id(1, 1),
                                  .reason = BSF_REASON_PCF_REQUEST}),
    };
    bsf_apply_position_t pos = {"kafka/t1/0", 0, 3};
    bsf_apply_batch_t batch = {.events = evs, .n_events = 2, .positions = &pos, .n_positions = 1};
    f->hook_calls = 0;
    cmd = apply(f, &batch);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.applied, 2);
    bsf_engine_stats_t st;
    bsf_engine_stats(f->engine, &st);
    assert_int_equal(st.own_seq, 2);
    assert_int_equal(st.seq_floor, 2);
    bsf_command_free(cmd);

    /* caught up: writes go on after the last sequence number in the log */
    cmd = tu_engine_register(f->engine, &f->json, "pcf1.example.com", "10.0.1.3");
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_event_t full;
    bsf_pcf_binding_t storage;
    last_event(f, &full, &storage);
    assert_int_equal(full.site, 1);
    assert_int_equal(full.seq, 3);
    assert_int_equal(f->hook_first, 3);
    assert_int_equal(f->hook_last, 3);
    bsf_command_free(cmd);
}

static void test_cross_site_collision_owner_yields(void **state)
{
    fx_t *f = *state;
    bsf_command_t *own = tu_engine_register(f->engine, &f->json, "pcf1.example.com", "10.0.2.1");
    assert_int_equal(own->status, BSF_CMD_OK);
    uint64_t later = BSF_HLC_FROM_MS(bsf_clock_wall_ms() + 60000);
    /* an older registration from site 2 (older HLC): this site's binding stays */
    bsf_binding_id_t old_remote = make_id(2, 1), new_remote = make_id(2, 2);
    bsf_apply_event_t evs[2] = {
        registered(f, 0, 2, 1, BSF_HLC_FROM_MS(1000), old_remote, "pcf2.example.com", "10.0.2.1"),
        registered(f, 1, 2, 2, later, new_remote, "pcf3.example.com", "10.0.2.1"),
    };
    bsf_apply_position_t pos = {"kafka/t2/0", 0, 1};
    bsf_apply_batch_t batch = {.events = evs, .n_events = 1, .positions = &pos, .n_positions = 1};
    bsf_command_t *cmd = apply(f, &batch);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.replaced, 0);
    assert_true(live(f, &own->id) && live(f, &old_remote));
    /* a newer one: this site, the owner, deregisters its binding (one event, naming it) */
    pos = (bsf_apply_position_t){"kafka/t2/0", 1, 2};
    batch.events = &evs[1];
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.replaced, 1);
    assert_false(live(f, &own->id));
    assert_true(live(f, &new_remote));
    assert_true(live(f, &old_remote)); /* site 2's own business */
    bsf_event_t full;
    bsf_pcf_binding_t storage;
    last_event(f, &full, &storage);
    assert_int_equal(full.type, BSF_EVENT_BINDING_DEREGISTERED);
    assert_int_equal(full.site, 1);
    assert_int_equal(full.reason, BSF_REASON_REPLACED_BY_COLLISION);
    assert_true(full.has_replaced_by);
    assert_memory_equal(full.replaced_by.b, new_remote.b, 16);
    assert_memory_equal(full.binding_id.b, own->id.b, 16);
    bsf_command_free(cmd);
    bsf_command_free(own);
}

static void test_hook_refusal_fails_the_batch(void **state)
{
    fx_t *f = *state;
    f->hook_answer = BSF_ENGINE_HOOK_REFUSE;
    bsf_command_t *cmd = tu_engine_register(f->engine, &f->json, "pcf1.example.com", "10.0.3.1");
    assert_int_equal(cmd->status, BSF_CMD_FAILED);
    assert_int_equal(cmd->problem.cause, BSF_CAUSE_NF_CONGESTION);
    assert_string_equal(cmd->problem.detail, "log unreachable");
    assert_int_equal(f->store.log.last, 0);
    bsf_command_free(cmd);
    f->hook_answer = BSF_ENGINE_HOOK_EXPORTED;
    cmd = tu_engine_register(f->engine, &f->json, "pcf1.example.com", "10.0.3.1");
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_event_t full;
    bsf_pcf_binding_t storage;
    last_event(f, &full, &storage);
    assert_int_equal(full.seq, 1); /* the refused batch used no sequence number */
    bsf_engine_stats_t st;
    bsf_engine_stats(f->engine, &st);
    assert_int_equal(st.hook_refusals, 1);
    bsf_command_free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_remote_events_once_with_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_events_and_the_sequence_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cross_site_collision_owner_yields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hook_refusal_fails_the_batch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
