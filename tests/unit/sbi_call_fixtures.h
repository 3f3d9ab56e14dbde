/* One SBI request waited for synchronously, shared by the tests that run the SBI client
 * against real peers (test_sbi_client, test_sbi_alt_route, test_nrf_token). A call's answer
 * is copied out of the response, which lives only while the callback runs. */
#ifndef BSF_TESTS_UNIT_SBI_CALL_FIXTURES_H
#define BSF_TESTS_UNIT_SBI_CALL_FIXTURES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "gateways/sbi/sbi_client.h"

/* What a request's answer said. The test owns it (usually on its stack); sc_call_init
 * before it is handed to the client, which writes it once from its own thread. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;  /* 1 once answered */
    int calls; /* how often the callback ran (a request answers once) */
    bsf_sbi_result_t result;
    int status;
    char body[4096]; /* NUL-terminated, cut at the buffer */
    size_t body_len; /* the whole body's length */
    char server[128], conn[16], error[600]; /* the Server and x-conn headers, "" when absent */
    bool has_problem;
    bsf_sbi_problem_t problem;
    unsigned attempts, redirects, alternates;
    bool on_client_thread; /* the callback ran on the client's thread */
} sc_call_t;

/* Zeroes `c` and readies its lock. Cannot fail. */
void sc_call_init(sc_call_t *c);
/* The bsf_sbi_done_fn that fills the sc_call_t `arg` and wakes sc_call_wait. */
void sc_call_done(void *arg, const bsf_sbi_response_t *rsp);
/* Blocks until `c` is answered. */
void sc_call_wait(sc_call_t *c);
/* sc_call_init(c), then submits `q` to `cl` with sc_call_done; fails the test when the
 * client refuses it. Does not wait. */
void sc_call_submit(bsf_sbi_client_t *cl, const bsf_sbi_request_t *q, sc_call_t *c);
/* sc_call_submit, then sc_call_wait. */
void sc_call_run(bsf_sbi_client_t *cl, const bsf_sbi_request_t *q, sc_call_t *c);

#endif
