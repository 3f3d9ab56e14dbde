/* Admission control of the SBI server (issue 14), on the shared controller
 * (gateways/admission/admission.h): the decision at header completion, before the body is
 * read and before anything is parsed or looked up (seed §3.4: the request's priority from
 * 3gpp-Sbi-Message-Priority, else its operation's default), the rate limits (§3.28, token
 * buckets per consumer and per operation) and the headers added to every answer: Server
 * (§3.26.1), 3gpp-Sbi-Oci while overloaded and 3gpp-Sbi-Lci (TS 29.500 §6.3, §6.4).
 *
 * A discarded request is answered with a ProblemDetails prepared at start (status and cause
 * configured, Retry-After): it costs no allocation and no JSON encoding.
 *
 * Threads: new/free on one thread around the server's life; check and headers on the
 * server's workers; metrics on any thread. */
#ifndef BSF_GATEWAYS_SBI_SBI_ADMISSION_H
#define BSF_GATEWAYS_SBI_SBI_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/admission/admission.h"
#include "gateways/sbi/h2_server.h"

typedef struct bsf_sbi_admission bsf_sbi_admission_t;

typedef struct {
    bsf_admission_t *adm;       /* borrowed; NULL: everything admitted */
    const char *nf_instance_id; /* copied; empty: no Server, OCI or LCI header */
    bool server_header;         /* sbi.server_header */
    bool lci;                   /* overload.lci */
    uint32_t status;            /* congestion.response_status (4xx/5xx) */
    const char *cause;          /* congestion.response_cause: [A-Z0-9_]*, copied */
    uint32_t retry_after_s;     /* 0: no Retry-After */
    uint32_t consumer_rate, burst;             /* ratelimit.consumer_rate, .burst */
    uint32_t route_rate[BSF_ADM_OP_COUNT];     /* ratelimit.routes (0: none) */
    uint32_t rate_priority_cutoff;             /* priorities <= this are never limited */
    bsf_adm_state_t connection_refuse_state;   /* new connections closed from this state on;
                                                  above CONGESTED: never */
    uint32_t connection_max_streams; /* streams of a connection opened in DOC or above; 0: all */
} bsf_sbi_admission_config_t;

/* NULL when memory is short or the cause holds characters outside [A-Z0-9_]. */
bsf_sbi_admission_t *bsf_sbi_admission_new(const bsf_sbi_admission_config_t *cfg);
void bsf_sbi_admission_free(bsf_sbi_admission_t *a);

/* The h2 server's `admit` callback (ctx: the bsf_sbi_admission_t). Returns true to admit;
 * false after answering the request (503 or the configured status, or 429 for a rate
 * limit). */
bool bsf_sbi_admission_check(bsf_sbi_admission_t *a, bsf_h2_stream_t *s,
                             const bsf_h2_request_t *r);

/* The h2 server's `admit_connection` callback (seed §3.29): false (counted by state) from
 * connection_refuse_state on; in DOC and above the connection's stream limit is lowered to
 * connection_max_streams. Any worker thread; no lock. */
bool bsf_sbi_admission_connection(bsf_sbi_admission_t *a, uint32_t *max_streams);

/* The h2 server's `response_headers` callback: Server, 3gpp-Sbi-Oci, 3gpp-Sbi-Lci as
 * configured and as the state is. Returns how many it wrote (at most cap). The values live
 * in per-thread buffers until the next call on the thread. */
size_t bsf_sbi_admission_headers(bsf_sbi_admission_t *a, bsf_h2_header_t *out, size_t cap);

/* The h2 server's `answered` callback: counts the answer for seed §3.1's
 * ocbsf_http_message_priority_response_count_total (the first 24 distinct statuses). Any
 * worker thread; no lock. */
void bsf_sbi_admission_answered(bsf_sbi_admission_t *a, const char *method, int status,
                                int answer_priority);

/* ocbsf_sbi_ratelimit_reject_total{route},
 * ocbsf_http_message_priority_request_count_total{direction,rcvd_priority,eval_priority,
 * interface_type,msg_type} and ocbsf_http_message_priority_response_count_total{direction,
 * rcvd_priority,eval_priority,interface_type,msg_type,response_code} (seed §3.1; the
 * combinations seen; with the SBI client's series, gateways/admission/priority_metrics.h),
 * ocbsf_sbi_connection_reject_total{state},
 * ocbsf_sbi_connection_limited_total{state}. */
void bsf_sbi_admission_write_metrics(const bsf_sbi_admission_t *a, bsf_text_t *out);

#endif
