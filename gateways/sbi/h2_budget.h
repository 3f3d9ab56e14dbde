/* Memory accounting for one SBI worker: every byte a connection or stream holds (our
 * buffers and nghttp2's own allocations through nghttp2_mem) is counted against the
 * worker's budget, so that the server can refuse streams and connections before a hostile
 * peer makes the process grow without bound.
 *
 * Single-threaded: a budget belongs to one worker thread and is only used there; `used` may
 * be read elsewhere as an approximate gauge through bsf_h2_budget_used. */
#ifndef BSF_GATEWAYS_SBI_H2_BUDGET_H
#define BSF_GATEWAYS_SBI_H2_BUDGET_H

#include <nghttp2/nghttp2.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    atomic_size_t used; /* bytes currently allocated through this budget */
    size_t limit;       /* 0: no limit */
} bsf_h2_budget_t;

/* Allocate / resize / free `n` bytes counted against the budget. They never refuse for the
 * budget (callers decide with bsf_h2_budget_over); they return NULL only when malloc does. */
void *bsf_h2_budget_malloc(bsf_h2_budget_t *b, size_t n);
void *bsf_h2_budget_calloc(bsf_h2_budget_t *b, size_t nmemb, size_t size);
void *bsf_h2_budget_realloc(bsf_h2_budget_t *b, void *p, size_t n);
void bsf_h2_budget_free(bsf_h2_budget_t *b, void *p);

/* Counts `n` bytes held outside the budget's allocator (a TLS session's state inside
 * OpenSSL, estimated) / gives them back. Same thread as the other calls. */
void bsf_h2_budget_charge(bsf_h2_budget_t *b, size_t n);
void bsf_h2_budget_release(bsf_h2_budget_t *b, size_t n);

/* Fills `mem` so that an nghttp2 session allocates through the budget. */
void bsf_h2_budget_nghttp2_mem(bsf_h2_budget_t *b, nghttp2_mem *mem);

/* Bytes in use. Any thread (relaxed). */
size_t bsf_h2_budget_used(const bsf_h2_budget_t *b);
/* True when more than `num`/`den` of the limit is in use (false without a limit). */
int bsf_h2_budget_over(const bsf_h2_budget_t *b, unsigned num, unsigned den);

#endif
