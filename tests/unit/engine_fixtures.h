/* The fixture of the engine command tests (test_ue_commands, test_mbs_commands): a real LMDB
 * store in a fresh temporary directory with a started engine of site 1, and scratch buffers.
 * Test thread only; every failure fails the running test. */
#ifndef BSF_TESTS_UNIT_ENGINE_FIXTURES_H
#define BSF_TESTS_UNIT_ENGINE_FIXTURES_H

#include <stdbool.h>

#include <msgpack.h>

#include "core/event.h"
#include "engine/engine.h"
#include "engine/read.h"
#include "engine/store.h"

typedef struct {
    char dir[64];
    bsf_store_t store;
    bsf_engine_t *engine;
    msgpack_sbuffer json, enc;
    msgpack_zone zone;
    bool collision_detection;
    bsf_notify_sink_t notify;    /* for the engine at the next ef_open (default: none) */
    bsf_engine_hooks_t hooks;    /* likewise */
    size_t notify_cache_bytes;   /* likewise */
} ef_store_t;

/* A new fixture (the caller owns it; ef_destroy frees it) in a directory made from the
 * mkdtemp template `dir_template`, store and engine open. */
ef_store_t *ef_create(const char *dir_template, bool collision_detection);
/* Closes engine and store, removes the directory, frees `f`. */
void ef_destroy(ef_store_t *f);
/* The cmocka teardown of a test whose state is an ef_create fixture: ef_destroy(*state), 0. */
int ef_teardown(void **state);
/* Opens the store and starts the engine (again, after ef_close). */
void ef_open(ef_store_t *f);
/* Stops the engine and closes the store (the directory stays). */
void ef_close(ef_store_t *f);

/* A read handle of the store with its snapshot begun (bsf_read_acquire, bsf_read_begin);
 * the caller releases it with bsf_read_release. Fails the test when either fails. */
bsf_read_t *ef_read(ef_store_t *f);
/* The store's counter `name` as a new snapshot reads it. */
uint64_t ef_counter(ef_store_t *f, const char *name);

/* Applies one event of another site through BSF_CMD_APPLY (asserting it applied); returns
 * how many of this site's bindings it replaced. */
size_t ef_apply_remote(ef_store_t *f, bsf_event_t ev);

#endif
