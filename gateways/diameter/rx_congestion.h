/* Congestion control of the Diameter front end (seed §3.26): a state from the node's CPU use
 * and the requests waiting for an answer, changed only after it held for several samples,
 * and the load shedding of requests by priority while the node is in danger of congestion or
 * congested. Pure: the state logic is the shared admission rules' (admission_rules.h); the
 * shared controller samples (admission.h) and the proxy applies (rx_proxy.c).
 *
 * Priorities go from 0 (most important) to 31. A request is discarded when its priority is
 * greater than or equal to the state's discard priority (mode `priority`), or with the
 * state's percentage for its priority range (mode `percentage`). Answers are never shed. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_CONGESTION_H
#define BSF_GATEWAYS_DIAMETER_RX_CONGESTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/admission/admission_rules.h"
#include "gateways/diameter/rx_kind.h"
#include "gateways/diameter/rx_settings.h"

/* The states are the shared controller's (gateways/admission): one state for the SBI and Rx. */
typedef bsf_adm_state_t bsf_rx_cong_state_t;
#define BSF_RX_CONG_NORMAL BSF_ADM_NORMAL
#define BSF_RX_CONG_DOC BSF_ADM_DOC /* danger of congestion */
#define BSF_RX_CONG_L1 BSF_ADM_L1
#define BSF_RX_CONG_L2 BSF_ADM_L2
#define BSF_RX_CONG_CONGESTED BSF_ADM_CONGESTED

#define BSF_RX_CONG_LEVELS 4     /* DOC, L1, L2, CONGESTED */
#define BSF_RX_PRIORITY_MAX 31
#define BSF_RX_PRIORITY_NONE 255 /* a command without its own priority: the default's */
#define BSF_RX_PRIORITY_RULES_MAX 32

/* A comparison of a priority AVP's value with a number. */
typedef enum {
    BSF_RX_CMP_EQ = 0,
    BSF_RX_CMP_NE,
    BSF_RX_CMP_LT,
    BSF_RX_CMP_LE,
    BSF_RX_CMP_GT,
    BSF_RX_CMP_GE,
} bsf_rx_cmp_t;

#define BSF_RX_RULE_CONDITIONS 4

/* A condition on a request's DRMP or OC-Message-Priority value. It does not hold when the
 * request lacks the AVP or its value is out of range (DRMP 0-15, OC-Message-Priority 0-31). */
typedef struct {
    bool oc; /* OC-Message-Priority, else DRMP */
    bsf_rx_cmp_t cmp;
    uint32_t value;
} bsf_rx_priority_condition_t;

/* One rule of the message priority profile (seed §3.26): a request of one of the kinds (any
 * when 0) for which every condition holds gets `priority`. */
typedef struct {
    uint32_t kinds; /* bit (1 << bsf_rx_kind_t) per kind */
    bsf_rx_priority_condition_t conditions[BSF_RX_RULE_CONDITIONS];
    size_t n_conditions;
    uint8_t priority;
} bsf_rx_priority_rule_t;

typedef struct {
    uint32_t cpu_pct[BSF_RX_CONG_LEVELS]; /* CPU use (%) from which each level holds */
    uint32_t queue[BSF_RX_CONG_LEVELS];   /* pending requests from which each level holds */
    uint32_t sample_count;                /* samples a new state must hold before it applies */
    bool by_percentage;
    uint32_t discard_priority[BSF_RX_CONG_LEVELS];
    uint8_t discard_pct[BSF_RX_CONG_LEVELS][BSF_RX_PRIORITY_MAX + 1];
    uint8_t priority_default;
    uint8_t priority_aar, priority_str, priority_rar, priority_asr; /* or _NONE */
    bsf_rx_priority_rule_t priority_rules[BSF_RX_PRIORITY_RULES_MAX]; /* first match wins */
    size_t n_priority_rules;
} bsf_rx_cong_rules_t;

typedef struct {
    bsf_rx_cong_state_t state, candidate;
    uint32_t streak; /* consecutive samples of `candidate` */
} bsf_rx_cong_t;

/* "DOC", "L1", ... ("NORMAL"). */
const char *bsf_rx_cong_state_name(bsf_rx_cong_state_t s);

/* The level `value` reaches among four increasing thresholds. */
bsf_rx_cong_state_t bsf_rx_cong_level(const uint32_t thresholds[BSF_RX_CONG_LEVELS],
                                      uint64_t value);

/* One sample: the candidate is the higher of the CPU's and the queue's levels; the state
 * becomes the candidate once it was the candidate for sample_count samples in a row.
 * Returns the state. */
bsf_rx_cong_state_t bsf_rx_cong_sample(bsf_rx_cong_t *c, const bsf_rx_cong_rules_t *r,
                                       uint32_t cpu_pct, uint64_t queue);

/* A request's priority: the first priority rule it matches, else its OC-Message-Priority
 * (0-31, Oracle's) when it has one (oc >= 0), else its DRMP (0-15, RFC 7944; drmp >= 0),
 * else the command's configured priority, else the default. Values out of those ranges are
 * ignored. */
uint32_t bsf_rx_cong_priority(const bsf_rx_cong_rules_t *r, bsf_rx_kind_t kind, int drmp,
                              int64_t oc);

/* Whether a request of `priority` is discarded in state `s`; `draw` is uniform in 0..99
 * (used by the percentage mode only). */
bool bsf_rx_cong_discard(const bsf_rx_cong_rules_t *r, bsf_rx_cong_state_t s, uint32_t priority,
                         uint32_t draw);

/* Configuration lists (items separated by '\n'). Each returns 0, or -1 with the reason.
 *   levels:       four strictly increasing numbers from 1 to max ("60\n70\n75\n80")
 *   discard priorities: four not increasing numbers from 0 to 32 (32: nothing is discarded)
 *   percentages:  "STATE LO-HI:PCT [LO-HI:PCT...]" items, STATE one of DOC L1 L2 CONGESTED
 *   priorities:   "default=N", "aar=N", "str=N", "rar=N", "asr=N" (0-31)
 *   priority rules: "[cmd=aar|aar-i|aar-u|str|rar|asr] [drmpOPn|ocOPn ...] priority=N", OP one of
 *                 == != < <= > >=, up to 4 conditions (e.g. "cmd=aar oc>=28 priority=30",
 *                 "oc>=10 oc<=12 priority=31"), at most 32 rules
 * The configuration's defaults are seed §3.26's (tables 3-24 to 3-26 and 3-29). */
int bsf_rx_cong_parse_levels(const char *list, uint32_t max, uint32_t out[BSF_RX_CONG_LEVELS],
                             char *why, size_t cap);
int bsf_rx_cong_parse_discard_priorities(const char *list, uint32_t out[BSF_RX_CONG_LEVELS],
                                         char *why, size_t cap);
int bsf_rx_cong_parse_percentages(const char *list, bsf_rx_cong_rules_t *r, char *why,
                                  size_t cap);
int bsf_rx_cong_parse_priorities(const char *list, bsf_rx_cong_rules_t *r, char *why, size_t cap);
int bsf_rx_cong_parse_priority_rules(const char *list, bsf_rx_cong_rules_t *r, char *why,
                                     size_t cap);

/* All the rules from the `diameter.congestion.*` settings. Returns 0, or -1 with the reason
 * naming the setting. */
int bsf_rx_cong_rules_from_settings(const bsf_diameter_settings_t *s, bsf_rx_cong_rules_t *r,
                                    char *why, size_t cap);

#endif
