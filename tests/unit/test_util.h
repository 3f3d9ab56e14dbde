/* Helpers for unit tests: build msgpack documents from JSON-like text. */
#ifndef BSF_TESTS_UNIT_TEST_UTIL_H
#define BSF_TESTS_UNIT_TEST_UTIL_H

#include <msgpack.h>

/* Parses JSON into a msgpack object living in `zone` (buffer kept in `buf`). Fails the test
 * on invalid JSON. */
msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone);

#endif
