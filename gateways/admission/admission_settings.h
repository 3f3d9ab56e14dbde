/* The operator's settings of admission control (admission.*, congestion.*, overload.*,
 * ratelimit.*, sbi.server_header, sbi.errors; bsfd/config_keys_admission.c) as configured
 * text, and their translation into the controller's configuration. Pure. */
#ifndef BSF_GATEWAYS_ADMISSION_ADMISSION_SETTINGS_H
#define BSF_GATEWAYS_ADMISSION_ADMISSION_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/admission/admission.h"

typedef struct {
    bool enabled;                     /* admission.enabled */
    char priorities[128];             /* admission.priorities: op=N items */
    uint32_t interval_ms;             /* congestion.interval_ms */
    uint32_t sample_count;            /* congestion.sample_count */
    char cpu[64], pending[128], memory[64]; /* congestion.*_thresholds */
    char receiving[128];              /* congestion.receiving_thresholds */
    int mode;                         /* congestion.shedding: 0 priority, 1 percentage */
    char discard_priorities[64];
    char discard_percentages[512];
    uint32_t status;                  /* congestion.response_status */
    char cause[64];                   /* congestion.response_cause */
    uint32_t retry_after_s;           /* congestion.retry_after_s; 0: no Retry-After */
    bool overload;                    /* overload.enabled */
    char ov_cpu[64], ov_pending[128], ov_memory[64];
    char reduction[32];               /* overload.reduction: L1;L2;L3 % */
    uint32_t validity_s;              /* overload.validity_s */
    bool lci;                         /* overload.lci */
    bool client_oci;                  /* overload.honour_oci */
    bool server_header;               /* sbi.server_header */
    char errors[1024];                /* sbi.errors: CAUSE=STATUS[:NAME] items */
    uint32_t rate_per_consumer;       /* ratelimit.consumer_rate (requests/s; 0: none) */
    uint32_t rate_burst;              /* ratelimit.burst */
    char route_rates[128];            /* ratelimit.routes: op=N items */
    uint32_t rate_priority;           /* ratelimit.priority_cutoff: <= this is never limited */
    int connection_refuse;            /* admission.connection_refuse_state: 0 DOC .. 3
                                         CONGESTED, 4 never */
    uint32_t connection_max_streams;  /* admission.connection_max_streams */
    bool error_detail;                /* sbi.error_detail.enhanced (seed §3.11) */
    bool error_log;                   /* sbi.error_log.enabled (seed §3.9) */
    bool error_log_ue_id;             /* sbi.error_log.ue_id */
    uint32_t error_log_rate;          /* sbi.error_log.rate */
    uint32_t error_log_burst;         /* sbi.error_log.max_burst */
    char message_profile[2048];       /* admission.message_priority_profile (seed §3.1) */
} bsf_admission_settings_t;

/* The controller's configuration from the settings. Returns 0, or -1 with the reason naming
 * the setting. */
int bsf_admission_settings_apply(const bsf_admission_settings_t *s, bsf_admission_config_t *out,
                                 char *why, size_t cap);

#endif
