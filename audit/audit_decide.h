/* The audit's decisions (seed §3.34), pure functions of the settings, a binding's audit
 * state, the time and the PCF's answers. No I/O; any thread. */
#ifndef BSF_AUDIT_AUDIT_DECIDE_H
#define BSF_AUDIT_AUDIT_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit/audit_settings.h"

typedef enum {
    BSF_AUDIT_SKIP,           /* younger than audit.min_ttl (or audited too recently) */
    BSF_AUDIT_REMOVE_MAX_TTL, /* past audit.max_ttl with audit.min_attempts attempts */
    BSF_AUDIT_MARK_SUSPECTED, /* past min_ttl, no PCF query (disabled or no URL): attempt + 1 */
    BSF_AUDIT_QUERY,          /* past min_ttl: query the PCF */
} bsf_audit_due_t;

/* What to do with a binding created at `created_ms`, last confirmed at `last_audited_ms`
 * (-1: never), with `attempts`; `has_url` when it names a notificationUrl. */
bsf_audit_due_t bsf_audit_decide_due(const bsf_audit_settings_t *s, int64_t now_ms,
                                     int64_t created_ms, int64_t last_audited_ms,
                                     uint32_t attempts, bool has_url);

typedef enum {
    BSF_AUDIT_ANSWER_FOUND,     /* 2xx */
    BSF_AUDIT_ANSWER_NOT_FOUND, /* 404 */
    BSF_AUDIT_ANSWER_FAILED,    /* any other status, no answer, timeout */
} bsf_audit_answer_kind_t;

typedef enum {
    BSF_AUDIT_CONFIRM,          /* keep; last audited now, attempts 0 */
    BSF_AUDIT_REMOVE_NOT_FOUND, /* enough 404s */
    BSF_AUDIT_ASK_SAME,         /* a 404 short of audit.total_404: ask the same PCF again */
    BSF_AUDIT_ASK_ALTERNATE,    /* ... ask another PCF of the set */
    BSF_AUDIT_FAIL,             /* attempts + 1 */
} bsf_audit_next_t;

/* After an answer: `not_found` 404s so far (this one counted), `distinct` of them from
 * different PCFs. */
bsf_audit_next_t bsf_audit_decide_answer(const bsf_audit_settings_t *s,
                                         bsf_audit_answer_kind_t answer, unsigned not_found,
                                         unsigned distinct);

#endif
