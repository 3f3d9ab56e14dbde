/* engine/sub_keyset.c, engine/sub_cache.c and engine/sub_index.c: the set of subscribed
 * SUPIs / GPSIs (no false negative, an aborted transaction undone), the cache of decoded
 * subscriptions (its bound, LRU order, deep copies), and through a real engine that no cached
 * subscription is ever stale: deleted, replaced, written by an aborted transaction, changed
 * by another site's replicated event, or counted again after a restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "core/hlc.h"
#include "engine/command.h"
#include "engine/sub_cache.h"
#include "engine/sub_keyset.h"
#include "tests/unit/engine_fixtures.h"
#include "tests/unit/test_util.h"

static uint64_t hash_of(const char *v, bool gpsi)
{
    return bsf_sub_keyset_hash(v, strlen(v), gpsi);
}

static void keyset_has_no_false_negative(void **state)
{
    (void)state;
    bsf_sub_keyset_t ks = {0};
    char v[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(v, sizeof v, "imsi-0010100%08d", i);
        assert_int_equal(bsf_sub_keyset_add(&ks, hash_of(v, false), 1, false), 0);
    }
    assert_int_equal(ks.total, 20000);
    for (int i = 0; i < 20000; i += 2) { /* the even ones leave */
        snprintf(v, sizeof v, "imsi-0010100%08d", i);
        assert_int_equal(bsf_sub_keyset_add(&ks, hash_of(v, false), -1, false), 0);
    }
    size_t false_positive = 0;
    for (int i = 0; i < 20000; i++) {
        snprintf(v, sizeof v, "imsi-0010100%08d", i);
        if (i % 2)
            assert_true(bsf_sub_keyset_has(&ks, hash_of(v, false)));
        else
            false_positive += bsf_sub_keyset_has(&ks, hash_of(v, false));
        /* the same digits as a GPSI are another value */
        false_positive += bsf_sub_keyset_has(&ks, hash_of(v, true));
    }
    assert_int_equal(false_positive, 0); /* 64-bit hashes: no collision among 40,000 */
    /* two subscriptions of one value: it stays until both are gone */
    uint64_t h = hash_of("msisdn-1", true);
    assert_int_equal(bsf_sub_keyset_add(&ks, h, 1, false), 0);
    assert_int_equal(bsf_sub_keyset_add(&ks, h, 1, false), 0);
    assert_int_equal(bsf_sub_keyset_add(&ks, h, -1, false), 0);
    assert_true(bsf_sub_keyset_has(&ks, h));
    assert_int_equal(bsf_sub_keyset_add(&ks, h, -1, false), 0);
    assert_false(bsf_sub_keyset_has(&ks, h));
    bsf_sub_keyset_clear(&ks);
    assert_false(bsf_sub_keyset_has(&ks, h));
}

static void keyset_aborted_transaction_is_undone(void **state)
{
    (void)state;
    bsf_sub_keyset_t ks = {0};
    uint64_t x = hash_of("imsi-1", false), y = hash_of("imsi-2", false);
    assert_int_equal(bsf_sub_keyset_add(&ks, x, 1, true), 0);
    bsf_sub_keyset_settle(&ks, true);
    /* a transaction removes x's subscription, adds y's and many more (resizes), aborts */
    assert_int_equal(bsf_sub_keyset_add(&ks, x, -1, true), 0);
    assert_false(bsf_sub_keyset_has(&ks, x));
    assert_int_equal(bsf_sub_keyset_add(&ks, y, 1, true), 0);
    char v[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(v, sizeof v, "imsi-9%05d", i);
        assert_int_equal(bsf_sub_keyset_add(&ks, hash_of(v, false), 1, true), 0);
    }
    bsf_sub_keyset_settle(&ks, false);
    assert_true(bsf_sub_keyset_has(&ks, x));
    assert_false(bsf_sub_keyset_has(&ks, y));
    assert_false(bsf_sub_keyset_has(&ks, hash_of("imsi-900007", false)));
    assert_int_equal(ks.total, 1);
    /* committed, the changes stay */
    assert_int_equal(bsf_sub_keyset_add(&ks, x, -1, true), 0);
    bsf_sub_keyset_settle(&ks, true);
    assert_false(bsf_sub_keyset_has(&ks, x));
    assert_int_equal(ks.total, 0);
    bsf_sub_keyset_clear(&ks);
}

static bsf_sub_cached_t one_sub(char *uri, char *supi, uint8_t id)
{
    bsf_sub_cached_t c;
    memset(&c, 0, sizeof c);
    memset(c.id.b, id, 16);
    c.sub.events = 1u << BSF_SUB_EVENT_UE_REGISTRATION;
    c.sub.notif_uri = uri;
    c.sub.notif_corre_id = "corr";
    c.sub.supi = supi;
    c.sub.expiry_ms = -1;
    return c;
}

static void cache_copies_and_evicts_under_its_bound(void **state)
{
    (void)state;
    bsf_sub_cache_t c;
    bsf_sub_cache_init(&c, 4096);
    char uri[64], supi[32];
    bsf_snssai_dnn_t pairs[2] = {{.snssai = {.sst = 1}, .dnn = "a"}, {.dnn = "internet"}};
    for (int i = 0; i < 200; i++) {
        snprintf(uri, sizeof uri, "http://nf.example.com/n/%d", i);
        snprintf(supi, sizeof supi, "imsi-%d", i);
        bsf_sub_cached_t s = one_sub(uri, supi, (uint8_t)i);
        s.sub.n_add_pairs = 2;
        s.sub.add_pairs = pairs;
        const bsf_sub_cache_entry_t *e =
            bsf_sub_cache_put(&c, hash_of(supi, false), supi, false, &s, 1);
        assert_non_null(e);
        memset(uri, 'x', 30); /* the entry is a copy */
        assert_true(c.bytes <= c.max_bytes);
        assert_int_equal(strncmp(e->subs[0].sub.notif_uri, "http://nf.example.com/n/", 24), 0);
        assert_string_equal(e->subs[0].sub.add_pairs[1].dnn, "internet");
        assert_ptr_not_equal(e->subs[0].sub.add_pairs, pairs);
        /* imsi-0 is used at every put: it is never the least recently used */
        if (i > 0)
            assert_non_null(bsf_sub_cache_get(&c, hash_of("imsi-0", false), "imsi-0", false));
    }
    assert_true(c.evictions > 0);
    assert_true(c.n < 200);
    assert_null(bsf_sub_cache_get(&c, hash_of("imsi-1", false), "imsi-1", false));
    assert_non_null(bsf_sub_cache_get(&c, hash_of("imsi-199", false), "imsi-199", false));
    /* the same digits as a GPSI are another entry; drop forgets one */
    assert_null(bsf_sub_cache_get(&c, hash_of("imsi-199", true), "imsi-199", true));
    bsf_sub_cache_drop(&c, hash_of("imsi-199", false), "imsi-199", false);
    assert_null(bsf_sub_cache_get(&c, hash_of("imsi-199", false), "imsi-199", false));
    /* an entry with no subscription (all another site's) is an entry too */
    assert_non_null(bsf_sub_cache_put(&c, hash_of("g", true), "g", true, NULL, 0));
    assert_int_equal(bsf_sub_cache_get(&c, hash_of("g", true), "g", true)->n, 0);
    bsf_sub_cache_clear(&c);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.bytes, 0);
    /* a bound of 0 keeps the entry last put, and only it */
    c.max_bytes = 0;
    bsf_sub_cached_t s = one_sub(uri, supi, 1);
    assert_non_null(bsf_sub_cache_put(&c, 1, "a", false, &s, 1));
    assert_non_null(bsf_sub_cache_put(&c, 2, "b", false, &s, 1));
    assert_int_equal(c.n, 1);
    assert_null(bsf_sub_cache_get(&c, 1, "a", false));
    bsf_sub_cache_destroy(&c);
}

/* ---- through the engine --------------------------------------------------------------- */

static int delivered; /* notifications handed over since the last reset */
static char last_corre[64];

static void count_items(void *ctx, bsf_notify_item_t *items)
{
    (void)ctx;
    for (bsf_notify_item_t *it = items; it; it = it->next) {
        delivered++;
        const char *p = memmem(it->body, it->body_len, "notifCorreId", 12);
        assert_non_null(p);
        size_t len = (uint8_t)p[12] & 0x1f; /* fixstr */
        snprintf(last_corre, sizeof last_corre, "%.*s", (int)len, p + 13);
    }
    bsf_notify_items_free(items);
}

static bool refuse_next; /* the next batch's commit is refused (its transaction aborts) */

static int before_commit(void *ctx, struct MDB_txn *txn, uint64_t first, uint64_t last,
                         bsf_problem_t *problem)
{
    (void)ctx, (void)txn, (void)first, (void)last;
    if (!refuse_next)
        return BSF_ENGINE_HOOK_OK;
    refuse_next = false;
    bsf_problem_set(problem, BSF_CAUSE_SYSTEM_FAILURE, "refused by the test");
    return BSF_ENGINE_HOOK_REFUSE;
}

static int setup(void **state)
{
    ef_store_t *f = ef_create("/tmp/bsf-test-subcache-XXXXXX", true);
    ef_close(f);
    f->notify = (bsf_notify_sink_t){NULL, count_items};
    f->hooks = (bsf_engine_hooks_t){.before_commit = before_commit};
    f->notify_cache_bytes = 1 << 20;
    ef_open(f);
    delivered = 0;
    refuse_next = false;
    *state = f;
    return 0;
}

#define SUPI "imsi-001010000000077"

/* Registers a UE binding of SUPI: how many notifications it caused. */
static int ue_register(ef_store_t *f)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_UE_REGISTER);
    msgpack_object o = tu_json("{\"supi\":\"" SUPI "\",\"gpsi\":\"msisdn-4912345677\","
                               "\"pcfForUeFqdn\":\"pcf.example.com\"}",
                               &f->json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_ue_binding_decode(&o, &cmd->zone, &cmd->ue_binding, &p), 0);
    int before = delivered;
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_command_free(cmd);
    return delivered - before;
}

static void decode_sub(ef_store_t *f, const char *events, const char *ue, const char *corre,
                       bsf_command_t *cmd)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"events\":[%s],\"notifUri\":\"http://nef.example.com/n\","
             "\"notifCorreId\":\"%s\",%s}", events, corre, ue);
    msgpack_object o = tu_json(json, &f->json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_subscription_decode(&o, &cmd->zone, &cmd->subscription, &p), 0);
}

#define UE_REG "\"PCF_UE_BINDING_REGISTRATION\""
#define BY_SUPI "\"supi\":\"" SUPI "\""

/* Runs a subscription command; its status. The id is in *id (create) or taken from it. */
static bsf_command_status_t sub_cmd(ef_store_t *f, bsf_command_kind_t kind, const char *events,
                                    const char *ue, const char *corre, bsf_binding_id_t *id)
{
    bsf_command_t *cmd = bsf_command_new(kind);
    if (kind != BSF_CMD_SUB_DELETE)
        decode_sub(f, events, ue, corre, cmd);
    if (kind != BSF_CMD_SUB_CREATE)
        cmd->id = *id;
    tu_engine_run(f->engine, cmd);
    bsf_command_status_t st = cmd->status;
    if (kind == BSF_CMD_SUB_CREATE)
        *id = cmd->id;
    bsf_command_free(cmd);
    return st;
}

static void deleted_subscription_is_not_notified(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t id;
    assert_int_equal(ue_register(f), 0);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "c1", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1); /* cached now */
    assert_int_equal(ue_register(f), 1);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
    /* two of the UE, one deleted: the other only */
    bsf_binding_id_t other;
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "c2", &id), BSF_CMD_OK);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "c3", &other), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 2);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "c3");
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &other), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
    /* by GPSI: the other value's entry */
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG,
                             "\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-4912345677\"", "g", &id),
                     BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "g");
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
}

static void replaced_filter_is_honoured(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t id;
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "old", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "old");
    /* the same UE, another notifCorreId */
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_REPLACE, UE_REG, BY_SUPI, "new", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "new");
    /* another event only (not a UE binding's) */
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_REPLACE, "\"PCF_PDU_SESSION_BINDING_REGISTRATION\"",
                             BY_SUPI, "new", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
    /* another UE: the old SUPI's entry and count are gone */
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_REPLACE, UE_REG, "\"supi\":\"imsi-001010000000002\"", "x", &id),
                     BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_REPLACE, UE_REG, BY_SUPI, "back", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "back");
}

/* sub_cmd with the commit of its batch refused: the command must fail. */
static void sub_cmd_aborted(ef_store_t *f, bsf_command_kind_t kind, const char *events,
                            const char *ue, const char *corre, bsf_binding_id_t *id)
{
    refuse_next = true;
    assert_int_equal(sub_cmd(f, kind, events, ue, corre, id), BSF_CMD_FAILED);
}

static void aborted_transaction_leaves_nothing(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t id, ghost;
    /* the creation aborts */
    sub_cmd_aborted(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "ghost", &ghost);
    assert_int_equal(ue_register(f), 0);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "real", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    /* a second subscription of the UE that aborts: the cache never holds it */
    sub_cmd_aborted(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "ghost", &ghost);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "real");
    /* a deletion that aborts: the subscription and its count stay */
    sub_cmd_aborted(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &id);
    assert_int_equal(ue_register(f), 1);
    /* a replacement that aborts: the cache holds the committed one */
    sub_cmd_aborted(f, BSF_CMD_SUB_REPLACE, UE_REG, BY_SUPI, "aborted", &id);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "real");
}

static void replicated_events_invalidate(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t id;
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "site1", &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 1);
    /* site 2 replaces this site's subscription (a PUT there), later */
    bsf_command_t *tmp = bsf_command_new(BSF_CMD_SUB_CREATE);
    decode_sub(f, UE_REG, BY_SUPI, "from-site2", tmp);
    uint64_t later = BSF_HLC_FROM_MS(bsf_clock_wall_ms() + 60000);
    ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_REPLACED, .site = 2,
                                     .seq = 1, .hlc = later, .binding_id = id,
                                     .subscription = &tmp->subscription, .origin_ts_ms = -1,
                                     .sender_ts_ms = -1});
    bsf_command_free(tmp);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "from-site2");
    /* and removes it */
    ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_REMOVED, .site = 2,
                                     .seq = 2, .hlc = later + 1, .binding_id = id,
                                     .reason = BSF_REASON_PCF_REQUEST});
    assert_int_equal(ue_register(f), 0);
}

static void restart_counts_the_store_again(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t id;
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_CREATE, UE_REG, BY_SUPI, "kept", &id), BSF_CMD_OK);
    ef_close(f);
    ef_open(f);
    assert_int_equal(ue_register(f), 1);
    assert_string_equal(last_corre, "kept");
    /* without any cache: the same answers */
    ef_close(f);
    f->notify_cache_bytes = 0;
    ef_open(f);
    assert_int_equal(ue_register(f), 1);
    assert_int_equal(sub_cmd(f, BSF_CMD_SUB_DELETE, NULL, NULL, NULL, &id), BSF_CMD_OK);
    assert_int_equal(ue_register(f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyset_has_no_false_negative),
        cmocka_unit_test(keyset_aborted_transaction_is_undone),
        cmocka_unit_test(cache_copies_and_evicts_under_its_bound),
        cmocka_unit_test_setup_teardown(deleted_subscription_is_not_notified, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(replaced_filter_is_honoured, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(aborted_transaction_leaves_nothing, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(replicated_events_invalidate, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(restart_counts_the_store_again, setup, ef_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
