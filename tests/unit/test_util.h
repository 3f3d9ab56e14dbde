/* Helpers for unit tests: msgpack documents and bindings from JSON text, stores and engines
 * started and their commands run synchronously, test peers and temporary directories. Test
 * thread only (tu_waiter_t is counted from the engine's thread); a failure fails the running
 * test unless the function says it returns -1. */
#ifndef BSF_TESTS_UNIT_TEST_UTIL_H
#define BSF_TESTS_UNIT_TEST_UTIL_H

#include <msgpack.h>
#include <pthread.h>
#include <sys/types.h>

#include "core/decide.h"
#include "core/event.h"
#include "core/pcf_binding.h"
#include "engine/engine.h"
#include "engine/store.h"

/* Parses JSON into a msgpack object living in `zone` (buffer kept in `buf`). Fails the test
 * on invalid JSON. */
msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone);

/* A binding decoded from JSON into `zone` and checked against the rules. Fails the test when
 * it is not a valid binding. */
bsf_pcf_binding_t *tu_binding(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone);

/* A fixture of cmocka tests that decode documents (cmocka state): buffers, a zone, a problem
 * and a binding. tu_doc_setup allocates it (aborts the test when out of memory),
 * tu_doc_teardown frees it. */
typedef struct {
    msgpack_sbuffer buf, out;
    msgpack_zone zone;
    bsf_problem_t problem;
    bsf_pcf_binding_t b;
} tu_doc_t;
int tu_doc_setup(void **state);
int tu_doc_teardown(void **state);
/* Decodes `json` into f->b and checks the rules; returns the cause (NONE on success). */
bsf_cause_t tu_check(tu_doc_t *f, const char *json);
/* f->b encoded canonically and written back as JSON text (in f->out). */
const char *tu_doc_to_json(tu_doc_t *f);

/* The same with one fixture for the whole file (tu_scratch_setup / _teardown as a test's
 * setup and teardown): tu_bind decodes a valid binding into it. tu_scratch_zone is its
 * zone, tu_scratch the whole fixture. */
int tu_scratch_setup(void **state);
int tu_scratch_teardown(void **state);
bsf_pcf_binding_t *tu_bind(const char *json);
msgpack_zone *tu_scratch_zone(void);
tu_doc_t *tu_scratch(void);

/* A binding of one session (SUPI, IPv4, DNN, S-NSSAI) served by `pcf_fqdn`, in c's zone. */
bsf_pcf_binding_t *tu_site_binding(tu_doc_t *c, const char *pcf_fqdn);
/* A view of `b` as registered at `site` with sequence number `seq` at `created_ms`. */
bsf_binding_view_t tu_site_view(const bsf_pcf_binding_t *b, uint16_t site, uint64_t seq,
                                uint64_t created_ms, int64_t origin, int64_t sender);

/* A binding (JSON) with every member of PcfBinding set, and an unknown one. */
extern const char *const tu_full_binding;

/* `ev` encoded into `out` (the caller's, initialised; cleared first) and decoded back into
 * *back, its members in `zone` (a payload of a PDU-session binding is not expected). Fails the
 * test when either step fails. */
void tu_event_round_trip(const bsf_event_t *ev, msgpack_sbuffer *out, msgpack_zone *zone,
                         bsf_event_t *back);
/* Fails the test unless `a` and `b` have the same envelope: type, site, sequence number, HLC
 * and binding id. */
void tu_assert_same_envelope(const bsf_event_t *a, const bsf_event_t *b);

/* Counts the engine commands submitted through tu_engine_submit that are done. The test owns
 * it; the engine's thread counts. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
} tu_waiter_t;
/* Readies `w` with none done. Cannot fail. */
void tu_waiter_init(tu_waiter_t *w);
/* Blocks until `n` commands of `w` are done. */
void tu_waiter_wait(tu_waiter_t *w, int n);
/* Submits `cmd` to the engine without waiting; `w` counts it when it is done (cmd->owner and
 * cmd->done are taken). Fails the test when the engine refuses it. */
void tu_engine_submit(bsf_engine_t *engine, bsf_command_t *cmd, tu_waiter_t *w);

/* Opens `store` read-write in the directory `dir` with a map of `map_mb` MB (16 readers);
 * fails the test with the store's message when it cannot. The caller closes it. */
void tu_store_open(bsf_store_t *store, const char *dir, size_t map_mb);
/* Creates and starts an engine on the open `store` as `ec` configures it, into *engine;
 * fails the test with the engine's message when it cannot. The caller destroys it. */
void tu_engine_start(bsf_store_t *store, const bsf_engine_config_t *ec, bsf_engine_t **engine);

/* Submits `cmd` to the engine and waits until it is done (its status is then set). */
void tu_engine_run(bsf_engine_t *engine, bsf_command_t *cmd);

/* Runs a registration of one session (a fixed SUPI, `ipv4`, DNN, S-NSSAI) served by `pcf`
 * (the document parsed through `json`); returns the command, status set, for the caller to
 * free. Fails the test when the document does not decode. */
bsf_command_t *tu_engine_register(bsf_engine_t *engine, msgpack_sbuffer *json, const char *pcf,
                                  const char *ipv4);

/* Starts a Python test peer, `/usr/bin/python3 script --port-file <dir>/<port_name> opts...`
 * (`opts` NULL-terminated, at most 12; NULL for none), that writes the port it listens on
 * into that file, and waits up to `tries` × 50 ms for it. Returns its pid with the port in
 * *port, or -1 (the peer killed) when it never wrote one. The caller SIGTERMs and reaps it. */
pid_t tu_peer_start(const char *script, const char *dir, const char *port_name,
                    const char *const opts[], int tries, int *port);

/* Makes a new directory /tmp/<name>.XXXXXX (its path into `dir`, `cap` bytes); fails the
 * test when it cannot. */
void tu_temp_dir(char *dir, size_t cap, const char *name);

/* Ends the `n` test peers of `peers` (SIGTERM, then reaps each; a pid <= 0, a peer that
 * never started, is skipped), then removes their directory `dir` as tu_dir_remove does.
 * Returns 0, or -1 when the directory could not be removed. */
int tu_peers_stop(const pid_t *peers, size_t n, const char *dir);

/* Removes the directory `dir` and everything below it. Returns 0, or -1 when it could not. */
int tu_dir_remove(const char *dir);

/* Destroys `engine`, closes `store` and removes its directory `dir` (the test fails when the
 * directory stays). */
void tu_engine_close(bsf_engine_t *engine, bsf_store_t *store, const char *dir);

#endif
