/* Seed §3.1's message priority series for the messages the BSF sends and the answers it gets
 * (its SBI client): ocbsf_http_message_priority_request_count_total{direction="out"} and
 * ocbsf_http_message_priority_response_count_total{direction="in"}. The SBI server's own
 * series (direction in/out) are in gateways/sbi/sbi_admission.c, which writes these lines
 * under the same metric names (one HELP/TYPE per name, as Prometheus requires).
 *
 * The counters are process-wide, bounded (kind x priority x priority, kind x priority x
 * the first 24 distinct statuses) and lock-free.
 *
 * Threads: any, no lock. */
#ifndef BSF_GATEWAYS_ADMISSION_PRIORITY_METRICS_H
#define BSF_GATEWAYS_ADMISSION_PRIORITY_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"

/* The egress messages counted: interface_type and msg_type are the message profile's
 * interfaceType and messageType names (message_profile.h), Notify for the notifications to
 * subscribers, which no profile rule sets. */
typedef enum {
    BSF_MP_EGRESS_NONE = 0,         /* not counted (SCP probes) */
    BSF_MP_EGRESS_AUDIT_NOTIFY,     /* Npcf_Binding_Audit, Audit_Notify */
    BSF_MP_EGRESS_NF_REGISTER,      /* Nnrf, NfRegister */
    BSF_MP_EGRESS_NF_PATCH,         /* Nnrf, AutonomousNfPatch (heartbeat, NFUpdate) */
    BSF_MP_EGRESS_NF_DEREGISTER,    /* Nnrf, AutonomousNfDeRegistration */
    BSF_MP_EGRESS_NF_DISCOVER,      /* Nnrf, NfDiscover */
    BSF_MP_EGRESS_ACCESS_TOKEN,     /* Nnrf, AccessToken */
    BSF_MP_EGRESS_NOTIFY,           /* Nbsf_Management, Notify */
    BSF_MP_EGRESS_KINDS
} bsf_mp_egress_t;

/* What an egress request is, for its series. */
typedef struct {
    bsf_mp_egress_t kind; /* NONE: not counted */
    int rcvd;             /* its priority before the message profile; -1: none (NA) */
} bsf_mp_egress_tag_t;

/* A request sent (each attempt on the wire): `priority` the 3gpp-Sbi-Message-Priority it
 * carries, -1: none. Out-of-range priorities count as none. */
void bsf_mp_metrics_request(bsf_mp_egress_tag_t tag, int priority);
/* An HTTP answer to it: `priority` the producer's 3gpp-Sbi-Message-Priority (-1: none or
 * not valid). No rule changes an answer the BSF receives, so its eval_priority is the same. */
void bsf_mp_metrics_answer(bsf_mp_egress_tag_t tag, int priority, int status);

/* The series lines (no HELP/TYPE) of the requests, then of the answers, seen so far. */
void bsf_mp_metrics_write_requests(bsf_text_t *out);
void bsf_mp_metrics_write_answers(bsf_text_t *out);

/* Shared with the server's series. One sample of `name` (the request or response count)
 * labelled direction, rcvd_priority, eval_priority, interface_type, msg_type and, when
 * code >= 0, response_code; the label values are the caller's constants and priority labels. */
typedef struct {
    const char *direction, *rcvd, *eval, *interface, *msg_type;
    int code; /* -1: no response_code label (a request) */
} bsf_mp_series_t;
void bsf_mp_metrics_sample(bsf_text_t *out, const char *name, const bsf_mp_series_t *s,
                           uint64_t v);

/* Shared with the server's series. A priority label into out: the number, or NA when p is
 * outside 0..31. Returns true. */
bool bsf_mp_priority_label(int p, char out[4]);
/* The slot of a status in codes[n] (0: free), taking a free one the first time it is seen;
 * -1 when all n hold others. Lock-free. */
int bsf_mp_code_slot(atomic_int *codes, int n, int status);

#endif
