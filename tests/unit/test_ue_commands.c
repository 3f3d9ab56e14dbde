/* engine/ue_commands.c and engine/ue_read.c on a real LMDB store: register (201's id), the
 * replacement of a UE's earlier binding, update, deregister, 404s, discovery by SUPI and
 * GPSI through the read facade, the active count, other sites' UE events applied (and the
 * creating site's deregistration of its binding that a newer remote one replaces), and the
 * migration of a schema-1 store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/error.h"
#include "core/hlc.h"
#include "engine/engine.h"
#include "engine/read.h"
#include "engine/store.h"
#include "migrations/schema.h"
#include "projections/ue_projection.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/engine_fixtures.h"
#include "tests/unit/test_util.h"

typedef ef_store_t fx_t;

static int setup(void **state)
{
    *state = ef_create("/tmp/bsf-test-ue-XXXXXX", true);
    return 0;
}

static bsf_command_t *ue_register(fx_t *f, const char *supi, const char *fqdn)
{
    char json[256];
    snprintf(json, sizeof json,
             "{\"supi\":\"%s\",\"gpsi\":\"msisdn-4912345678\",\"pcfForUeFqdn\":\"%s\"}", supi,
             fqdn);
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_UE_REGISTER);
    tu_ue_binding_into(json, &f->json, &cmd->zone, &cmd->ue_binding);
    tu_engine_run(f->engine, cmd);
    return cmd;
}

/* Discovery through the read facade: how many live UE bindings, the first one's FQDN. */
static size_t discover(fx_t *f, const char *supi, const char *gpsi, char *fqdn, size_t cap)
{
    bsf_read_t *r = ef_read(f);
    bsf_ue_match_t m[4];
    size_t n = 0;
    assert_int_equal(bsf_read_ue_discover(r, supi, gpsi, bsf_read_zone(r), m, 4, &n), 0);
    if (n && fqdn)
        snprintf(fqdn, cap, "%s", m[0].binding.pcf_for_ue_fqdn);
    bsf_read_release(r);
    return n;
}

static void register_replace_update_deregister(void **state)
{
    fx_t *f = *state;
    char fqdn[64];
    bsf_command_t *a = ue_register(f, "imsi-001010000000001", "a.example.com");
    assert_int_equal(a->status, BSF_CMD_OK);
    assert_true(a->body.size > 0);
    assert_int_equal(discover(f, "imsi-001010000000001", NULL, fqdn, sizeof fqdn), 1);
    assert_string_equal(fqdn, "a.example.com");
    assert_int_equal(discover(f, NULL, "msisdn-4912345678", NULL, 0), 1);
    assert_int_equal(discover(f, "imsi-001010000000001", "msisdn-4900000000", NULL, 0), 0);
    bsf_command_t *b = ue_register(f, "imsi-001010000000001", "b.example.com");
    assert_int_equal(b->status, BSF_CMD_OK);
    assert_int_equal(discover(f, "imsi-001010000000001", NULL, fqdn, sizeof fqdn), 1);
    assert_string_equal(fqdn, "b.example.com");
    assert_int_equal(ef_counter(f, BSF_UE_COUNTER_TOTAL), 1);
    /* the replaced one is gone */
    bsf_command_t *u = bsf_command_new(BSF_CMD_UE_UPDATE);
    u->id = a->id;
    tu_engine_run(f->engine, u);
    assert_int_equal(u->status, BSF_CMD_REFUSED);
    assert_int_equal(u->problem.cause, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND);
    bsf_command_free(u);
    /* update */
    u = bsf_command_new(BSF_CMD_UE_UPDATE);
    u->id = b->id;
    msgpack_object o = tu_json("{\"pcfForUeFqdn\":\"c.example.com\"}", &f->json, &u->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_ue_binding_patch_decode(&o, &u->zone, &u->ue_patch, &p), 0);
    tu_engine_run(f->engine, u);
    assert_int_equal(u->status, BSF_CMD_OK);
    assert_int_equal(discover(f, NULL, "msisdn-4912345678", fqdn, sizeof fqdn), 1);
    assert_string_equal(fqdn, "c.example.com");
    bsf_command_free(u);
    bsf_read_t *live = ef_read(f);
    bsf_ue_match_t lm;
    assert_int_equal(bsf_read_ue_binding(live, &b->id, bsf_read_zone(live), &lm), 0);
    assert_string_equal(lm.binding.pcf_for_ue_fqdn, "c.example.com");
    assert_int_equal(bsf_read_ue_binding(live, &a->id, bsf_read_zone(live), &lm),
                     BSF_ENOTFOUND); /* replaced: a tombstone */
    bsf_read_release(live);
    /* deregister, twice */
    for (int i = 0; i < 2; i++) {
        bsf_command_t *d = bsf_command_new(BSF_CMD_UE_DEREGISTER);
        d->id = b->id;
        tu_engine_run(f->engine, d);
        assert_int_equal(d->status, i == 0 ? BSF_CMD_OK : BSF_CMD_REFUSED);
        bsf_command_free(d);
    }
    assert_int_equal(discover(f, "imsi-001010000000001", NULL, NULL, 0), 0);
    assert_int_equal(ef_counter(f, BSF_UE_COUNTER_TOTAL), 0);
    bsf_read_t *r = ef_read(f);
    bsf_ue_match_t m;
    assert_int_equal(bsf_read_ue_binding(r, &b->id, bsf_read_zone(r), &m), BSF_ENOTFOUND);
    bsf_binding_id_t unknown = b->id;
    unknown.b[15] ^= 0xff; /* never registered */
    assert_int_equal(bsf_read_ue_binding(r, &unknown, bsf_read_zone(r), &m), BSF_ENOTFOUND);
    bsf_read_release(r);
    bsf_command_free(a);
    bsf_command_free(b);
}

static void other_sites_events(void **state)
{
    fx_t *f = *state;
    char fqdn[64];
    bsf_command_t *own = ue_register(f, "imsi-001010000000002", "own.example.com");
    assert_int_equal(own->status, BSF_CMD_OK);
    bsf_pcf_ue_binding_t remote;
    tu_ue_binding_into(
        "{\"supi\":\"imsi-001010000000002\",\"pcfForUeFqdn\":\"remote.example.com\"}",
        &f->json, &f->zone, &remote);
    uint8_t rnd[8] = {0};
    bsf_binding_id_t old_id, new_id;
    bsf_binding_id_make(2, 1, rnd, &old_id);
    bsf_binding_id_make(2, 2, rnd, &new_id);
    /* created long ago: the own binding stays, both are live */
    assert_int_equal(ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_REGISTERED,
                                                      .site = 2, .seq = 1, .hlc = 5,
                                                      .created_hlc = 5, .binding_id = old_id,
                                                      .ue_binding = &remote}),
                     0);
    assert_int_equal(discover(f, "imsi-001010000000002", NULL, NULL, 0), 2);
    /* created later than the own one: this site deregisters its own */
    uint64_t later = BSF_HLC_FROM_MS(bsf_clock_wall_ms() + 60000);
    assert_int_equal(ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_REGISTERED,
                                                      .site = 2, .seq = 2, .hlc = later,
                                                      .created_hlc = later, .binding_id = new_id,
                                                      .ue_binding = &remote}),
                     1);
    assert_int_equal(discover(f, "imsi-001010000000002", NULL, fqdn, sizeof fqdn), 2);
    assert_string_equal(fqdn, "remote.example.com");
    /* the remote site's deregistration of its old binding applies too */
    ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_DEREGISTERED, .site = 2,
                                     .seq = 3, .hlc = later + 1, .binding_id = old_id,
                                     .reason = BSF_REASON_PCF_REQUEST});
    assert_int_equal(discover(f, "imsi-001010000000002", NULL, NULL, 0), 1);
    assert_int_equal(ef_counter(f, BSF_UE_COUNTER_TOTAL), 1);
    bsf_command_free(own);
}

static void schema_1_store_is_migrated(void **state)
{
    fx_t *f = *state;
    bsf_command_free(ue_register(f, "imsi-001010000000003", "a.example.com"));
    /* Make it a schema-1 store: no UE sub-databases, version 1. */
    ef_close(f);
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi, meta;
    assert_int_equal(mdb_env_create(&env), 0);
    assert_int_equal(mdb_env_set_maxdbs(env, 32), 0);
    assert_int_equal(mdb_env_set_mapsize(env, 64u << 20), 0);
    assert_int_equal(mdb_env_open(env, f->dir, MDB_NOTLS, 0640), 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    const char *names[] = {"ue_bindings", "ix_ue_supi", "ix_ue_gpsi", "mbs_bindings",
                           "ix_mbs_session"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(mdb_dbi_open(txn, names[i], 0, &dbi), 0);
        assert_int_equal(mdb_drop(txn, dbi, 1), 0);
    }
    assert_int_equal(mdb_dbi_open(txn, "meta", 0, &meta), 0);
    unsigned char one = 1;
    MDB_val k = {14, "schema_version"}, v = {1, &one};
    assert_int_equal(mdb_put(txn, meta, &k, &v, 0), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    ef_open(f);
    assert_int_equal(mdb_txn_begin(f->store.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(mdb_get(txn, f->store.meta, &k, &v), 0);
    assert_int_equal(*(unsigned char *)v.mv_data, BSF_SCHEMA_VERSION);
    mdb_txn_abort(txn);
    bsf_command_t *cmd = ue_register(f, "imsi-001010000000003", "b.example.com");
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(discover(f, "imsi-001010000000003", NULL, NULL, 0), 1);
    bsf_command_free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(register_replace_update_deregister, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(other_sites_events, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(schema_1_store_is_migrated, setup, ef_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
