/* The SBI's error answers as operators see them (issue 14 §7): seed §3.11's enhanced
 * ProblemDetails.detail (`<fqdn>:BSF_MGMT:<text> :EC-OBSF-BSF_MGMT-<CATEGORY>-<STATUS>-<ID>`,
 * the application error id of the condition) and seed §3.9's error log: one JSON line per
 * error answer (errorStatus, errorTitle, errorDetails, errorCause, sender, subscriberId),
 * through a token-bucket burst filter (rate per second, burst), the SUPI or GPSI only when
 * configured. Both off by default (UE identities are personal data).
 *
 * Threads: install once at start, before the SBI workers run; everything else on any thread
 * (the burst filter takes a mutex; the rest reads the installed settings). */
#ifndef BSF_GATEWAYS_SBI_SBI_ERROR_LOG_H
#define BSF_GATEWAYS_SBI_SBI_ERROR_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "core/problem.h"
#include "gateways/sbi/h2_server.h"

typedef struct {
    bool enhanced_detail;       /* sbi.error_detail.enhanced (seed §3.11) */
    bool log;                   /* sbi.error_log.enabled (seed §3.9) */
    bool log_ue_id;             /* sbi.error_log.ue_id: subscriberId in the line */
    uint32_t rate, burst;       /* sbi.error_log.rate (lines/s), .max_burst */
    const char *fqdn;           /* the server's FQDN (nf.fqdn, else the host name); copied */
    const char *nf_instance_id; /* for `sender` (BSF-<id>); copied */
} bsf_sbi_errors_config_t;

/* Makes the settings apply (copied). Once, at start. */
void bsf_sbi_errors_install(const bsf_sbi_errors_config_t *cfg);

/* Whether the error log wants the request's SUPI or GPSI (logging and ue_id both on). */
bool bsf_sbi_errors_want_subscriber(void);
/* The request's SUPI, else its GPSI: the `supi`/`gpsi` query parameter or body member.
 * "" when there is none. Parses the body (JSON) only when called: callers call it only when
 * bsf_sbi_errors_want_subscriber(). */
void bsf_sbi_errors_subscriber(const bsf_h2_request_t *r, char *out, size_t cap);

/* The detail an answer carries: `detail` as it is, or its seed §3.11 form when enhanced
 * (the text shortened so that the error id always fits in cap). `cause` BSF_CAUSE_NONE: an
 * operator-configured refusal (category CONFIG). */
void bsf_sbi_errors_detail(bsf_cause_t cause, int status, const char *detail, char *out,
                           size_t cap);
/* Whether details are enhanced. */
bool bsf_sbi_errors_enhanced(void);

/* An error answer went out: counted, and logged when the log is on and the burst filter
 * lets it through. `subscriber` may be NULL or "". */
void bsf_sbi_errors_answered(int status, const char *title, const char *detail,
                             const char *cause, const char *subscriber);

/* error_handler_out_total (error answers while the enhanced detail is on; seed §3.11),
 * ocbsf_sbi_error_log_total{result="logged|dropped"} (seed §3.9). */
void bsf_sbi_errors_write_metrics(void *ctx, bsf_text_t *out);

#endif
