/* The binding audit (seed §3.34): finds the stale PCF bindings this site created and removes
 * them, through the engine like any deregistration (so the removal replicates).
 *
 * A thread of its own ("bsf-audit") runs a cycle every audit.interval: it reads the bindings
 * in bounded batches (engine/audit_read.h, one short snapshot each) and, for each binding
 * older than audit.min_ttl (since created or last confirmed) and not audited within the
 * last interval, decides (audit/audit_decide.h): past audit.max_ttl with audit.min_attempts
 * attempts it is removed; otherwise, with audit.query_pcf, its PCF is queried at the
 * notificationUrl of the registration (GET, through bsf_audit_pcf_t): 2xx confirms it, 404s
 * remove it once audit.total_404 came (from different PCFs of its set with
 * audit.require_different_pcf), a failure counts an attempt. Queries (and the audit's
 * writes that need no query) go out at most audit.max_queries_per_s (a token bucket) and at
 * most BSF_AUDIT_MAX_INFLIGHT queries at once, so
 * an audit of millions of bindings neither floods the PCFs nor starves traffic. Every
 * outcome is an event (AuditConfirmed / Suspected / Failed, or BindingDeregistered with
 * reason audit_not_found / audit_max_ttl). */
#ifndef BSF_AUDIT_AUDIT_H
#define BSF_AUDIT_AUDIT_H

#include <stdint.h>

#include "audit/audit_pcf.h"
#include "audit/audit_settings.h"
#include "common/text.h"
#include "engine/engine.h"

#define BSF_AUDIT_MAX_INFLIGHT 1024

typedef struct {
    bsf_audit_settings_t settings;
    uint16_t site_id;
    bsf_audit_pcf_t pcf; /* copied */
} bsf_audit_config_t;

typedef struct {
    uint64_t cycles, scanned_candidates;
    uint64_t queries, answers_found, answers_not_found, answers_failed;
    uint64_t confirmed, suspected, failed, removed_not_found, removed_max_ttl;
    uint64_t alternates_asked, alternates_found;
    uint64_t dropped;  /* outcomes the engine refused (busy, changed since read) */
    uint64_t inflight;
} bsf_audit_stats_t;

typedef struct bsf_audit bsf_audit_t;

/* Main thread. Returns 0 (*out the caller's; NULL when audit.enabled is false) or -1 with a
 * message (no memory). */
int bsf_audit_create(bsf_store_t *store, bsf_engine_t *engine, const bsf_audit_config_t *cfg,
                     bsf_audit_t **out, char *err, size_t err_cap);
/* Starts the thread. Main thread. Returns 0 or a negated errno. NULL: 0. */
int bsf_audit_start(bsf_audit_t *a);
/* Stops the thread after the queries in flight completed (each within its timeout); before
 * the engine and the SBI client stop. NULL is ignored. Main thread. */
void bsf_audit_stop(bsf_audit_t *a);
/* Frees, after the engine stopped (its commands' callbacks count here). NULL is ignored. */
void bsf_audit_destroy(bsf_audit_t *a);
/* A copy of the counters. Any thread. */
void bsf_audit_stats(bsf_audit_t *a, bsf_audit_stats_t *out);
/* Prometheus text (bsf_ops_metrics_fn; ctx = the audit, may be NULL). Any thread. */
void bsf_audit_write_metrics(void *ctx, bsf_text_t *out);

#endif
