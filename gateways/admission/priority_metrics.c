/* Seed §3.1's egress message priority series (see priority_metrics.h). */
#include "gateways/admission/priority_metrics.h"

#include <stdio.h>
#include <string.h>

#include "common/metrics_text.h"
#include "gateways/admission/admission_rules.h"

#define NA (BSF_ADM_PRIORITY_MAX + 1) /* the index of "no priority" */
#define CODE_SLOTS 24                 /* distinct answer statuses counted (first seen) */

static const char *const names[BSF_MP_EGRESS_KINDS][2] = {
    [BSF_MP_EGRESS_AUDIT_NOTIFY] = {"Npcf_Binding_Audit", "Audit_Notify"},
    [BSF_MP_EGRESS_NF_REGISTER] = {"Nnrf", "NfRegister"},
    [BSF_MP_EGRESS_NF_PATCH] = {"Nnrf", "AutonomousNfPatch"},
    [BSF_MP_EGRESS_NF_DEREGISTER] = {"Nnrf", "AutonomousNfDeRegistration"},
    [BSF_MP_EGRESS_NF_DISCOVER] = {"Nnrf", "NfDiscover"},
    [BSF_MP_EGRESS_ACCESS_TOKEN] = {"Nnrf", "AccessToken"},
    [BSF_MP_EGRESS_NOTIFY] = {"Nbsf_Management", "Notify"},
};

/* [kind][priority before the profile, NA][priority sent, NA] */
static atomic_uint_fast64_t requests[BSF_MP_EGRESS_KINDS][NA + 1][NA + 1];
/* [kind][the answer's priority, NA][status slot] */
static atomic_int codes[CODE_SLOTS];
static atomic_uint_fast64_t answers[BSF_MP_EGRESS_KINDS][NA + 1][CODE_SLOTS];

static int index_of(int p)
{
    return p >= 0 && p <= BSF_ADM_PRIORITY_MAX ? p : NA;
}

static bool counted(bsf_mp_egress_tag_t tag)
{
    return tag.kind > BSF_MP_EGRESS_NONE && tag.kind < BSF_MP_EGRESS_KINDS;
}

void bsf_mp_metrics_request(bsf_mp_egress_tag_t tag, int priority)
{
    if (counted(tag))
        atomic_fetch_add_explicit(&requests[tag.kind][index_of(tag.rcvd)][index_of(priority)],
                                  1, memory_order_relaxed);
}

void bsf_mp_metrics_answer(bsf_mp_egress_tag_t tag, int priority, int status)
{
    int slot = counted(tag) ? bsf_mp_code_slot(codes, CODE_SLOTS, status) : -1;
    if (slot >= 0)
        atomic_fetch_add_explicit(&answers[tag.kind][index_of(priority)][slot], 1,
                                  memory_order_relaxed);
}

bool bsf_mp_priority_label(int p, char out[4])
{
    if (p >= 0 && p <= BSF_ADM_PRIORITY_MAX)
        snprintf(out, 4, "%d", p);
    else
        memcpy(out, "NA", 3);
    return true;
}

int bsf_mp_code_slot(atomic_int *slots, int n, int status)
{
    for (int i = 0; i < n; i++) {
        int c = atomic_load_explicit(&slots[i], memory_order_relaxed);
        if (c == status)
            return i;
        if (c == 0) {
            if (atomic_compare_exchange_strong(&slots[i], &c, status) || c == status)
                return i;
            i--; /* taken by another status meanwhile: look at the slot again */
        }
    }
    return -1;
}

void bsf_mp_metrics_sample(bsf_text_t *out, const char *name, const bsf_mp_series_t *s,
                           uint64_t v)
{
    char labels[192], code[24] = "";
    if (s->code >= 0)
        snprintf(code, sizeof code, ",response_code=\"%d\"", s->code);
    snprintf(labels, sizeof labels,
             "direction=\"%s\",rcvd_priority=\"%s\",eval_priority=\"%s\",interface_type=\"%s\","
             "msg_type=\"%s\"%s",
             s->direction, s->rcvd, s->eval, s->interface, s->msg_type, code);
    bsf_metrics_u64(out, name, labels, v);
}

void bsf_mp_metrics_write_requests(bsf_text_t *out)
{
    for (int k = BSF_MP_EGRESS_NONE + 1; k < BSF_MP_EGRESS_KINDS; k++)
        for (int rc = 0; rc <= NA; rc++)
            for (int ev = 0; ev <= NA; ev++) {
                unsigned long long v = atomic_load(&requests[k][rc][ev]);
                char rcvd[4], eval[4];
                if (v && bsf_mp_priority_label(rc, rcvd) && bsf_mp_priority_label(ev, eval))
                    bsf_mp_metrics_sample(out, "ocbsf_http_message_priority_request_count_total",
                                          &(bsf_mp_series_t){"out", rcvd, eval, names[k][0],
                                                             names[k][1], -1},
                                          v);
            }
}

void bsf_mp_metrics_write_answers(bsf_text_t *out)
{
    for (int k = BSF_MP_EGRESS_NONE + 1; k < BSF_MP_EGRESS_KINDS; k++)
        for (int p = 0; p <= NA; p++)
            for (int s = 0; s < CODE_SLOTS; s++) {
                unsigned long long v = atomic_load(&answers[k][p][s]);
                char prio[4];
                if (v && bsf_mp_priority_label(p, prio))
                    bsf_mp_metrics_sample(out, "ocbsf_http_message_priority_response_count_total",
                                          &(bsf_mp_series_t){"in", prio, prio, names[k][0],
                                                             names[k][1], atomic_load(&codes[s])},
                                          v);
            }
}
