/* Retry profiles of the SBI client: how often, on which answers, after how long. Pure. */
#ifndef BSF_GATEWAYS_SBI_SBI_RETRY_H
#define BSF_GATEWAYS_SBI_SBI_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_SBI_RETRY_MAX_STATUSES 8

typedef struct {
    unsigned max_retries;         /* attempts after the first; 0: never retry */
    size_t n_statuses;            /* answers that retry, e.g. 429 500 502 503 504 */
    int statuses[BSF_SBI_RETRY_MAX_STATUSES];
    bool on_timeout;              /* an attempt that got no answer in attempt_timeout_ms */
    bool on_connect_error;        /* the connection failed or closed before the answer */
    unsigned attempt_timeout_ms;  /* 0: the whole deadline */
    unsigned backoff_initial_ms;  /* the delay before the first retry */
    unsigned backoff_max_ms;      /* doubling stops here */
    bool honour_retry_after;      /* wait what a Retry-After asks (bounded by the deadline) */
    bool stop_on_retry_after;     /* an answer with Retry-After is final (seed §3.42: that
                                     peer is then avoided for the time it asks) */
} bsf_sbi_retry_profile_t;

/* What ended an attempt. */
typedef enum {
    BSF_SBI_ATTEMPT_ANSWER,        /* an HTTP status */
    BSF_SBI_ATTEMPT_TIMEOUT,
    BSF_SBI_ATTEMPT_CONNECT_ERROR, /* also: connection lost, stream reset, refused */
} bsf_sbi_attempt_end_t;

/* The profile used when a caller passes none: 2 retries of 500/502/503/504 and 429,
 * connection errors and timeouts, 50 ms doubling to 1 s, Retry-After honoured. */
extern const bsf_sbi_retry_profile_t bsf_sbi_retry_default;

/* Parses Retry-After: delta-seconds or an HTTP-date (IMF-fixdate, now_ms is the wall clock).
 * Returns the delay in ms (>= 0), -1 when absent or invalid. */
int64_t bsf_sbi_retry_after_ms(const char *value, int64_t now_ms);

/* Decides whether attempt number `done` (1 = the first) is retried. `status` is the answer
 * (ANSWER only), `retry_after_ms` -1 when none, `remaining_ms` the time left before the
 * request's deadline. Returns the delay before the next attempt (>= 0), or -1: no retry. */
int64_t bsf_sbi_retry_decide(const bsf_sbi_retry_profile_t *p, unsigned done,
                             bsf_sbi_attempt_end_t end, int status, int64_t retry_after_ms,
                             int64_t remaining_ms);

#endif
