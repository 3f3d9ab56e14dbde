/* A failmalloc harness (after nghttp2's tests/failmalloc_test.c): the test executable is
 * linked with --wrap for malloc, calloc, realloc, aligned_alloc and free, so every allocation
 * made by the code under test (the project's static libraries and the static msgpack-c) goes
 * through a counter that can make the i-th one fail.
 *
 * bsf_fm_run runs a scenario once to count its allocations, then once for every i, failing
 * the i-th. A scenario returns 0 when every operation succeeded and -1 when one reported an
 * error; it must release everything it allocated either way. Checked each run: a run with an
 * injected failure returns -1 and one without returns 0; no block allocated during the run
 * is left (LeakSanitizer checks the same in the ASan build, and that nothing crashed).
 * Single-threaded: the counters are not atomic. */
#ifndef BSF_TESTS_FAILMALLOC_FAILMALLOC_H
#define BSF_TESTS_FAILMALLOC_FAILMALLOC_H

#include <stddef.h>

typedef int (*bsf_fm_scenario_fn)(void *ctx);

/* Runs the scenario as above; fails the cmocka test on the first broken rule. Returns the
 * number of allocations of the successful run. */
size_t bsf_fm_run(const char *name, bsf_fm_scenario_fn fn, void *ctx);

#endif
