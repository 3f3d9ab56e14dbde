/* Configuration keys of the binding audit and the deletion log (seed §3.34, §3.34.1;
 * audit/audit.h). The seed's names are given in the descriptions. */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

/* Index = bsf_log_level_t; the last one: no deletion log. */
static const char *const deletion_levels[] = {"error", "warn", "info", "debug", "off", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("audit.enabled", audit.enabled, "true",
        "Audit the PCF bindings this site created and remove the stale ones (audit.enable, "
        "seed 3.34); the removals replicate like any deregistration."),
    BSF_CFG_BOOL_KEY("audit.query_pcf", audit.query_pcf, "true",
        "Ask the PCF before removing (queryToPcf): GET of the binding's "
        "`vendorSpecific-000111.notificationUrl`; 2xx keeps it, 404 removes it, a failure or "
        "timeout counts an attempt. Without it (or without a notificationUrl) each audit that "
        "finds the binding suspected counts an attempt."),
    BSF_CFG_DURATION_KEY("audit.interval", audit.interval_ms, "10m", "1s", "30d",
        "Time between two audit cycles over the bindings; also the least time between two audits "
        "of one binding."),
    BSF_CFG_DURATION_KEY("audit.min_ttl", audit.min_ttl_ms, "60h", "1s", "3650d",
        "Age (since created or last confirmed by its PCF) past which a binding is suspected "
        "stale and audited (minTTL, binding age threshold; seed default 3600 minutes)."),
    BSF_CFG_DURATION_KEY("audit.max_ttl", audit.max_ttl_ms, "120h", "1s", "3650d",
        "Age past which a binding with `audit.min_attempts` attempts is removed (maxTTL, maximum "
        "binding age; seed default 7200 minutes); at least `audit.min_ttl`."),
    BSF_CFG_UINT_KEY("audit.min_attempts", audit.min_attempts, "3", 0, 1000000,
        "Audit attempts (failed or unanswered queries) a binding past `audit.max_ttl` needs "
        "before it is removed (minAuditAttempts)."),
    BSF_CFG_UINT_KEY("audit.total_404", audit.total_404, "1", 1, 16,
        "404 answers needed in one audit to remove a binding (total404Count, minimum required "
        "404 responses); short of it the PCF is asked again."),
    BSF_CFG_BOOL_KEY("audit.require_different_pcf", audit.require_different_pcf, "false",
        "The `audit.total_404` 404s must come from different PCFs (expect404FromDifferentPCF): "
        "another PCF of the binding's pcfSetId is found through NF discovery; without one the "
        "404 quorum is not met and the audit counts an attempt."),
    BSF_CFG_UINT_KEY("audit.max_queries_per_s", audit.max_queries_per_s, "100", 1, 1000000,
        "Most audit queries sent to PCFs per second (a token bucket; audit outcomes that need no "
        "query count too), so that an audit of millions of bindings never floods the PCFs or "
        "starves traffic."),
    BSF_CFG_DURATION_KEY("audit.query_timeout", audit.query_timeout_ms, "2s", "100ms", "60s",
        "Deadline of one audit query (retries included); no answer by then counts an attempt."),
    BSF_CFG_ENUM_KEY("audit.deletion_log_level", audit.deletion_log_level, "info",
        deletion_levels,
        "Level of the stale-binding deletion log (enhancedLogging.staleSessionDeletionLogLevel, "
        "seed 3.34.1): one JSON line per removal by audit, Diameter stale notification or "
        "operator; written only when `log.level` is as verbose; `off`: none."),
    BSF_CFG_BOOL_KEY("audit.deletion_log_ue_ids", audit.deletion_log_ue_ids, "false",
        "Show UE identifiers (supi, gpsi, UE addresses) in clear in the deletion log; false "
        "masks them as XXXX."),
};

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    bsf_audit_settings_t *a = &cfg->audit;
    if (a->deletion_log_level == 4)
        a->deletion_log_level = -1;
    if (a->max_ttl_ms < a->min_ttl_ms) {
        snprintf(err, err_cap, "audit.max_ttl must be at least audit.min_ttl");
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_audit_section = {keys, sizeof keys / sizeof keys[0],
                                                       finish};
