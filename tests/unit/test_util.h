/* Helpers for unit tests: msgpack documents and bindings from JSON text, engine commands run
 * synchronously. */
#ifndef BSF_TESTS_UNIT_TEST_UTIL_H
#define BSF_TESTS_UNIT_TEST_UTIL_H

#include <msgpack.h>

#include "core/pcf_binding.h"
#include "engine/engine.h"
#include "engine/store.h"

/* Parses JSON into a msgpack object living in `zone` (buffer kept in `buf`). Fails the test
 * on invalid JSON. */
msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone);

/* A binding decoded from JSON into `zone` and checked against the rules. Fails the test when
 * it is not a valid binding. */
bsf_pcf_binding_t *tu_binding(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone);

/* Submits `cmd` to the engine and waits until it is done (its status is then set). */
void tu_engine_run(bsf_engine_t *engine, bsf_command_t *cmd);

#endif
