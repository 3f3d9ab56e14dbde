/* engine/mbs_commands.c and engine/mbs_read.c on a real LMDB store: register, a second
 * registration of the session refused with the bound PCF (by TMGI and by SSM), update,
 * deregister, discovery through the read facade, and other sites' registrations of the same
 * session (the earlier created stays; this site removes its own later one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "core/hlc.h"
#include "engine/doc_steps.h"
#include "engine/engine.h"
#include "engine/read.h"
#include "engine/store.h"
#include "projections/mbs_projection.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/engine_fixtures.h"
#include "tests/unit/test_util.h"

typedef ef_store_t fx_t;

static int setup(void **state)
{
    *state = ef_create("/tmp/bsf-test-mbs-XXXXXX", false);
    return 0;
}

#define TMGI "\"tmgi\":{\"mbsServiceId\":\"00AA01\",\"plmnId\":{\"mcc\":\"001\",\"mnc\":\"01\"}}"
#define SSM "\"ssm\":{\"sourceIpAddr\":{\"ipv4Addr\":\"198.51.100.1\"},\"destIpAddr\":" \
            "{\"ipv4Addr\":\"232.0.0.1\"}}"

static bsf_command_t *mbs_register(fx_t *f, const char *session, const char *fqdn)
{
    char json[512];
    snprintf(json, sizeof json, "{\"mbsSessionId\":{%s},\"pcfFqdn\":\"%s\"}", session, fqdn);
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_MBS_REGISTER);
    tu_mbs_binding_into(json, &f->json, &cmd->zone, &cmd->mbs_binding);
    tu_engine_run(f->engine, cmd);
    return cmd;
}

static size_t discover(fx_t *f, const char *session, char *fqdn, size_t cap)
{
    char json[512];
    bsf_pcf_mbs_binding_t q;
    snprintf(json, sizeof json, "{\"mbsSessionId\":{%s},\"pcfFqdn\":\"q.example.com\"}",
             session);
    tu_mbs_binding_into(json, &f->json, &f->zone, &q);
    bsf_read_t *r = ef_read(f);
    bsf_mbs_match_t m[4];
    size_t n = 0;
    assert_int_equal(bsf_read_mbs_discover(r, &q.mbs_session_id, bsf_read_zone(r), m, 4, &n),
                     0);
    if (n && fqdn)
        snprintf(fqdn, cap, "%s", m[0].binding.pcf_fqdn);
    bsf_read_release(r);
    return n;
}

static void one_pcf_per_session(void **state)
{
    fx_t *f = *state;
    char fqdn[64];
    bsf_command_t *a = mbs_register(f, TMGI "," SSM, "a.example.com");
    assert_int_equal(a->status, BSF_CMD_OK);
    assert_int_equal(discover(f, TMGI, fqdn, sizeof fqdn), 1);
    assert_string_equal(fqdn, "a.example.com");
    assert_int_equal(discover(f, SSM, NULL, 0), 1);
    for (int i = 0; i < 2; i++) {
        bsf_command_t *b = mbs_register(f, i ? SSM : TMGI, "b.example.com");
        assert_int_equal(b->status, BSF_CMD_REFUSED);
        assert_int_equal(b->problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
        assert_true(b->body.size > 0); /* the bound PCF's MbsBindingResp */
        assert_non_null(memmem(b->body.data, b->body.size, "a.example.com", 13));
        bsf_command_free(b);
    }
    bsf_command_t *u = bsf_command_new(BSF_CMD_MBS_UPDATE);
    u->id = a->id;
    msgpack_object o = tu_json("{\"pcfFqdn\":\"c.example.com\"}", &f->json, &u->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_mbs_binding_patch_decode(&o, &u->zone, &u->mbs_patch, &p), 0);
    tu_engine_run(f->engine, u);
    assert_int_equal(u->status, BSF_CMD_OK);
    bsf_command_free(u);
    assert_int_equal(discover(f, SSM, fqdn, sizeof fqdn), 1);
    assert_string_equal(fqdn, "c.example.com");
    bsf_command_t *d = bsf_command_new(BSF_CMD_MBS_DEREGISTER);
    d->id = a->id;
    tu_engine_run(f->engine, d);
    assert_int_equal(d->status, BSF_CMD_OK);
    bsf_command_free(d);
    assert_int_equal(discover(f, TMGI, NULL, 0), 0);
    bsf_command_t *b = mbs_register(f, TMGI, "b.example.com");
    assert_int_equal(b->status, BSF_CMD_OK);
    bsf_command_free(b);
    bsf_command_free(a);
}

static void cross_site_earlier_stays(void **state)
{
    fx_t *f = *state;
    char fqdn[64];
    bsf_command_t *own = mbs_register(f, TMGI, "own.example.com");
    assert_int_equal(own->status, BSF_CMD_OK);
    bsf_pcf_mbs_binding_t remote;
    tu_mbs_binding_into("{\"mbsSessionId\":{" TMGI "},\"pcfFqdn\":\"remote.example.com\"}",
                        &f->json, &f->zone, &remote);
    uint8_t rnd[8] = {0};
    bsf_binding_id_t later_id, earlier_id;
    bsf_binding_id_make(2, 1, rnd, &later_id);
    bsf_binding_id_make(2, 2, rnd, &earlier_id);
    uint64_t later = BSF_HLC_FROM_MS(bsf_clock_wall_ms() + 60000);
    /* created after ours: ours stays (site 2 removes its own) */
    assert_int_equal(ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_REGISTERED,
                                                      .site = 2, .seq = 1, .hlc = later,
                                                      .created_hlc = later, .binding_id = later_id,
                                                      .mbs_binding = &remote}),
                     0);
    assert_int_equal(discover(f, TMGI, fqdn, sizeof fqdn), 2);
    assert_string_equal(fqdn, "own.example.com"); /* oldest first */
    /* created before ours: ours goes */
    assert_int_equal(ef_apply_remote(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_REGISTERED,
                                                      .site = 2, .seq = 2, .hlc = later + 1,
                                                      .created_hlc = 5, .binding_id = earlier_id,
                                                      .mbs_binding = &remote}),
                     1);
    assert_int_equal(discover(f, TMGI, NULL, 0), 2); /* site 2's two, until it cleans up */
    assert_int_equal(ef_counter(f, BSF_MBS_COUNTER_TOTAL), 2);
    bsf_command_free(own);
}

/* More live bindings than a walk keeps (other sites' registrations of one session pile up
 * until those sites clean up): the TMGI walk fills the candidates, and the SSM walk that
 * follows must not write past them. */
static void more_candidates_than_kept(void **state)
{
    fx_t *f = *state;
    bsf_pcf_mbs_binding_t by_tmgi, by_ssm;
    tu_mbs_binding_into("{\"mbsSessionId\":{" TMGI "},\"pcfFqdn\":\"r.example.com\"}", &f->json,
                        &f->zone, &by_tmgi);
    tu_mbs_binding_into("{\"mbsSessionId\":{" SSM "},\"pcfFqdn\":\"s.example.com\"}", &f->json,
                        &f->zone, &by_ssm);
    uint8_t rnd[8] = {0};
    uint64_t later = BSF_HLC_FROM_MS(bsf_clock_wall_ms() + 60000);
    for (uint64_t seq = 1; seq <= BSF_ENGINE_DOC_MAX_FOUND + 1; seq++) {
        bsf_binding_id_t id;
        bsf_binding_id_make(2, seq, rnd, &id);
        bsf_event_t ev = {.type = BSF_EVENT_MBS_BINDING_REGISTERED, .site = 2, .seq = seq,
                          .hlc = later + seq, .created_hlc = later + seq, .binding_id = id,
                          .mbs_binding = seq <= BSF_ENGINE_DOC_MAX_FOUND ? &by_tmgi : &by_ssm};
        assert_int_equal(ef_apply_remote(f, ev), 0);
    }
    bsf_command_t *own = mbs_register(f, TMGI "," SSM, "own.example.com");
    assert_int_equal(own->status, BSF_CMD_REFUSED);
    assert_int_equal(own->problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
    assert_int_equal(ef_counter(f, BSF_MBS_COUNTER_TOTAL), BSF_ENGINE_DOC_MAX_FOUND + 1);
    bsf_command_free(own);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_pcf_per_session, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(cross_site_earlier_stays, setup, ef_teardown),
        cmocka_unit_test_setup_teardown(more_candidates_than_kept, setup, ef_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
