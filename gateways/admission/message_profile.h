/* Seed §3.1's message priority profile: rules that set or keep the 3gpp-Sbi-Message-Priority
 * of a request the BSF receives or sends, and the one its answer carries. The operator lists
 * rules with the seed's field names (admission.message_priority_profile); the first match
 * in ascending rulePriority applies. No profile (the default): no rule is evaluated, requests
 * keep their header or their operation's default and answers carry none.
 *
 * Threads: parse anywhere; install once at start, before the SBI workers and clients run;
 * the lookups on any thread (read only). */
#ifndef BSF_GATEWAYS_ADMISSION_MESSAGE_PROFILE_H
#define BSF_GATEWAYS_ADMISSION_MESSAGE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/admission/admission_rules.h"

typedef enum { BSF_MP_NEVER = 0, BSF_MP_ALWAYS, BSF_MP_IF_NOT_PRESENT } bsf_mp_mode_t;

typedef enum {
    BSF_MP_NBSF_MANAGEMENT = 0, /* requests to the BSF and their answers */
    BSF_MP_NPCF_BINDING_AUDIT,  /* the audit's requests to PCFs (seed §3.34) */
    BSF_MP_NNRF,                /* the BSF's requests to the NRF (NFManagement, discovery,
                                 * access tokens) */
    BSF_MP_INTERFACES
} bsf_mp_interface_t;

/* messageType: an operation of Nbsf_Management (bsf_adm_op_t), Audit_Notify, Any, or one of
 * the NRF requests (interfaceType Nnrf). */
#define BSF_MP_AUDIT_NOTIFY BSF_ADM_OP_COUNT
#define BSF_MP_ANY (BSF_ADM_OP_COUNT + 1)
#define BSF_MP_NF_REGISTER (BSF_ADM_OP_COUNT + 2)   /* NFRegister (PUT) */
#define BSF_MP_NF_PATCH (BSF_ADM_OP_COUNT + 3)      /* AutonomousNfPatch: heartbeat, NFUpdate */
#define BSF_MP_NF_DEREGISTER (BSF_ADM_OP_COUNT + 4) /* AutonomousNfDeRegistration */
#define BSF_MP_NF_DISCOVER (BSF_ADM_OP_COUNT + 5)   /* NFDiscover (PCFs of a set) */
#define BSF_MP_ACCESS_TOKEN (BSF_ADM_OP_COUNT + 6)  /* Nnrf_AccessToken */

typedef struct {
    char message_id[48];     /* messageID */
    uint32_t rule_priority;  /* rulePriority: lower first */
    bsf_mp_interface_t interface; /* interfaceType */
    int message_type;        /* messageType */
    bsf_mp_mode_t request;   /* requestPriorityOverride */
    uint8_t request_value;   /* requestPriorityValue */
    bsf_mp_mode_t response;  /* responsePriorityAssign */
    uint8_t response_value;  /* responsePriorityValue */
} bsf_mp_rule_t;

#define BSF_MP_MAX_RULES 16

typedef struct {
    size_t n;
    bsf_mp_rule_t rules[BSF_MP_MAX_RULES]; /* sorted by rule_priority */
} bsf_message_profile_t;

/* Rules separated by '\n', each `field=value` members separated by ',': messageID,
 * rulePriority (0..), interfaceType (Nbsf_Management, Npcf_Binding_Audit), messageType
 * (Discovery, Register, Deregister, Update, Audit_Notify, Any), requestPriorityOverride and
 * responsePriorityAssign (Always, IfNotPresent, Never; default Never), requestPriorityValue
 * and responsePriorityValue (0..31, needed unless Never). Returns 0, or -1 with the reason. */
int bsf_message_profile_parse(const char *list, bsf_message_profile_t *out, char *why,
                              size_t cap);

/* The rule for a message, NULL when none matches (or no profile). */
const bsf_mp_rule_t *bsf_message_profile_match(const bsf_message_profile_t *p,
                                               bsf_mp_interface_t itf, int message_type);

/* The request's priority after the rule: `received` is the valid header value or -1;
 * returns the evaluated priority or -1 (none: the operation's default applies). */
int bsf_mp_request_priority(const bsf_mp_rule_t *r, int received);
/* The priority the answer carries (-1: no header): Always its value; IfNotPresent the
 * request's own when it sent one (TS 29.500 §6.8), else the value; Never none. */
int bsf_mp_response_priority(const bsf_mp_rule_t *r, int received);

/* The profile the SBI server and clients use (copied). Once, at start. */
void bsf_message_profile_install(const bsf_message_profile_t *p);
/* The installed profile; an empty one before install. */
const bsf_message_profile_t *bsf_message_profile_installed(void);
/* An egress request's priority (-1: no header) after the installed profile's rule. */
int bsf_message_profile_egress(bsf_mp_interface_t itf, int message_type, int priority);
/* The 3gpp-Sbi-Message-Priority of a request to the NRF (message_type BSF_MP_NF_*,
 * BSF_MP_ACCESS_TOKEN): the installed profile's Nnrf rule (Always and IfNotPresent give its
 * value), else the seed's default: AutonomousNfPatch 3, AutonomousNfDeRegistration 2, the
 * others 1. Any thread. */
int bsf_message_profile_nrf(int message_type);

#endif
