/* The engine's commit window (store.commit_window_us) on a real LMDB store: commands that
 * arrive within the window share one transaction, a full batch does not wait the window out,
 * a lone command waits at most the window, and stopping ends the wait. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "tests/unit/test_util.h"

typedef struct {
    char dir[64];
    bsf_store_t store;
    bsf_engine_t *engine;
    msgpack_sbuffer json;
    tu_waiter_t done; /* the commands of submit */
} fx_t;

static void open_engine(fx_t *f, unsigned window_us, unsigned window_batch)
{
    tu_store_open(&f->store, f->dir, 64);
    bsf_engine_config_t ec = {.site_id = 1,
                              .max_batch = 64,
                              .queue_capacity = 1024,
                              .commit_window_us = window_us,
                              .commit_window_batch = window_batch};
    tu_engine_start(&f->store, &ec, &f->engine);
}

static fx_t *fixture(unsigned window_us, unsigned window_batch)
{
    fx_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/bsf-test-window-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    msgpack_sbuffer_init(&f->json);
    tu_waiter_init(&f->done);
    open_engine(f, window_us, window_batch);
    return f;
}

static void destroy(fx_t *f)
{
    tu_engine_close(f->engine, &f->store, f->dir);
    msgpack_sbuffer_destroy(&f->json);
    free(f);
}

/* Submits a registration of 10.0.9.`i` without waiting for it. */
static bsf_command_t *submit(fx_t *f, int i)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_REGISTER);
    assert_non_null(cmd);
    char doc[256];
    snprintf(doc, sizeof doc,
             "{\"supi\":\"imsi-00101000000%04d\",\"ipv4Addr\":\"10.0.9.%d\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1,\"sd\":\"000001\"},\"pcfFqdn\":\"pcf1.example.com\"}",
             i, i);
    msgpack_object o = tu_json(doc, &f->json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_binding_decode(&o, &cmd->zone, &cmd->binding, &p), 0);
    tu_engine_submit(f->engine, cmd, &f->done);
    return cmd;
}

static bsf_engine_stats_t stats(fx_t *f)
{
    bsf_engine_stats_t st;
    bsf_engine_stats(f->engine, &st);
    return st;
}

/* A 10 s window and a batch of 3: three commands commit together, long before the window
 * ends, each acknowledged after that one commit. */
static void test_full_batch_commits_without_waiting(void **state)
{
    (void)state;
    fx_t *f = fixture(10000000, 3);
    uint64_t t0 = bsf_clock_mono_ns();
    bsf_command_t *cmds[3];
    for (int i = 0; i < 3; i++) {
        cmds[i] = submit(f, i + 1);
        usleep(2000); /* the engine has taken the first one and waits */
    }
    tu_waiter_wait(&f->done, 3);
    assert_true(bsf_clock_mono_ns() - t0 < 5000000000ull);
    bsf_engine_stats_t st = stats(f);
    assert_int_equal(st.commands, 3);
    assert_int_equal(st.batches, 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cmds[i]->status, BSF_CMD_OK);
        bsf_command_free(cmds[i]);
    }
    destroy(f);
}

/* A lone command waits the window (30 ms) out, then commits. */
static void test_lone_command_waits_the_window(void **state)
{
    (void)state;
    fx_t *f = fixture(30000, 64);
    uint64_t t0 = bsf_clock_mono_ns();
    bsf_command_t *cmd = submit(f, 1);
    tu_waiter_wait(&f->done, 1);
    uint64_t took = bsf_clock_mono_ns() - t0;
    assert_true(took >= 30000000ull);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_engine_stats_t st = stats(f);
    assert_int_equal(st.batches, 1);
    assert_int_equal(st.window_waits, 1);
    assert_true(st.window_wait_ns >= 30000000ull);
    bsf_command_free(cmd);
    destroy(f);
}

/* Without a window nothing waits: a lone command's batch records no wait. */
static void test_no_window(void **state)
{
    (void)state;
    fx_t *f = fixture(0, 64);
    bsf_command_t *cmd = submit(f, 1);
    tu_waiter_wait(&f->done, 1);
    bsf_engine_stats_t st = stats(f);
    assert_int_equal(st.window_waits, 0);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_command_free(cmd);
    destroy(f);
}

/* Stopping the engine ends a 10 s window at once; the command still commits. */
static void test_stop_ends_the_window(void **state)
{
    (void)state;
    fx_t *f = fixture(10000000, 64);
    uint64_t t0 = bsf_clock_mono_ns();
    bsf_command_t *cmd = submit(f, 1);
    usleep(20000);
    bsf_engine_stop(f->engine);
    tu_waiter_wait(&f->done, 1);
    assert_true(bsf_clock_mono_ns() - t0 < 5000000000ull);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(f->store.log.last, 1);
    bsf_command_free(cmd);
    destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_batch_commits_without_waiting),
        cmocka_unit_test(test_lone_command_waits_the_window),
        cmocka_unit_test(test_no_window),
        cmocka_unit_test(test_stop_ends_the_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
