/* How the audit reaches PCFs, without HTTP: bsfd gives an implementation over the SBI client
 * (gateways/sbi/audit_pcf_client.h). */
#ifndef BSF_AUDIT_AUDIT_PCF_H
#define BSF_AUDIT_AUDIT_PCF_H

#include <stddef.h>

#include "audit/audit_decide.h"
#include "core/event.h" /* BSF_AUDIT_RESPONDER_MAX */

typedef struct {
    bsf_audit_answer_kind_t kind;
    int status;            /* HTTP status; 0 when there was no answer */
    const char *responder; /* who answered: the PCF's Server header, else the URI's authority */
    const char *error;     /* no answer: why */
} bsf_audit_answer_t;

/* Runs on any thread, exactly once per accepted query; must not block. `a` lives during the
 * call. */
typedef void (*bsf_audit_answer_fn)(void *arg, const bsf_audit_answer_t *a);
/* The API root ("http://host:port") of another PCF of the set, NULL when none. */
typedef void (*bsf_audit_alternate_fn)(void *arg, const char *api_root);

typedef struct {
    void *ctx;
    /* GET `url` within timeout_ms; `pcf_set_id` ("" when none): the set whose other PCFs may
     * answer when that PCF fails (alternate routing). Returns 0 (done is called once), or -1
     * (not sent; done is never called). */
    int (*query)(void *ctx, const char *url, const char *pcf_set_id, unsigned timeout_ms,
                 bsf_audit_answer_fn done, void *arg);
    /* Another PCF of set `pcf_set_id` than the `n` responders in `exclude` (NF discovery).
     * Returns 0 (done called once, any thread) or -1 (no discovery: done never called).
     * NULL: no alternate PCFs can be found. */
    int (*alternate)(void *ctx, const char *pcf_set_id, const char *const *exclude, size_t n,
                     bsf_audit_alternate_fn done, void *arg);
} bsf_audit_pcf_t;

#endif
