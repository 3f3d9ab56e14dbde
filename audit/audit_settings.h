/* The audit.* settings (bsfd/config_keys_audit.c) as the audit module reads them. */
#ifndef BSF_AUDIT_AUDIT_SETTINGS_H
#define BSF_AUDIT_AUDIT_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    bool enabled;
    bool query_pcf;
    uint64_t interval_ms;      /* between audit cycles; also the least time between two
                                  audits of one binding */
    uint64_t min_ttl_ms;       /* older (since created or last confirmed): suspected */
    uint64_t max_ttl_ms;       /* older, with min_attempts attempts: removed */
    unsigned min_attempts;
    unsigned total_404;        /* 404s needed to remove (>= 1) */
    bool require_different_pcf;/* ... each from a different PCF of the binding's set */
    unsigned max_queries_per_s;
    uint64_t query_timeout_ms; /* one PCF query, retries included */
    int deletion_log_level;    /* bsf_log_level_t, or -1: no deletion log */
    bool deletion_log_ue_ids;  /* UE identifiers in clear in the deletion log */
} bsf_audit_settings_t;

#endif
