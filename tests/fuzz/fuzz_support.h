/* What several fuzz targets share: the input as a C string, a msgpack zone per input, and the
 * invariant that every refusal names a cause. Aborts (the fuzzer's finding) when a check
 * fails; single-threaded, as libFuzzer calls its target. */
#ifndef BSF_TESTS_FUZZ_SUPPORT_H
#define BSF_TESTS_FUZZ_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "core/problem.h"

/* A NUL-terminated copy of the input (size + 1 bytes), for parsers that take C strings; the
 * caller frees it. NULL when out of memory. */
char *fz_cstring(const uint8_t *data, size_t size);

/* Runs check(text, len, zone) on the input with a fresh zone of `chunk` bytes, destroyed
 * afterwards: what the check allocates in the zone lives for this input only. */
void fz_with_zone(const uint8_t *data, size_t size, size_t chunk,
                  void (*check)(const char *text, size_t len, msgpack_zone *zone));

/* Whether a parser's rc means parsed (0); aborts when a refusal names no cause. */
bool fz_parsed(int rc, const bsf_problem_t *problem);

#endif
