/* The pure rules of admission control (issue 14; seed §3.4, §3.5, §3.26, §3.27): congestion
 * states from thresholds with anti-flapping, overload levels with onset and abatement, load
 * shedding by priority or by percentage, and the request priority of the SBI (§3.1: the
 * 3gpp-Sbi-Message-Priority header, else the operation's default). No I/O, no clock, no
 * allocation: every function is safe on any thread and costs a few nanoseconds.
 *
 * Priorities go from 0 (most important) to 31. A request is discarded when its priority is
 * greater than or equal to the state's discard priority (mode `priority`), or with the
 * state's percentage for its priority (mode `percentage`). */
#ifndef BSF_GATEWAYS_ADMISSION_ADMISSION_RULES_H
#define BSF_GATEWAYS_ADMISSION_ADMISSION_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    BSF_ADM_NORMAL = 0,
    BSF_ADM_DOC, /* danger of congestion */
    BSF_ADM_L1,
    BSF_ADM_L2,
    BSF_ADM_CONGESTED,
} bsf_adm_state_t;

#define BSF_ADM_LEVELS 4 /* DOC, L1, L2, CONGESTED */
#define BSF_ADM_PRIORITY_MAX 31
#define BSF_ADM_OVERLOAD_LEVELS 3 /* L1, L2, L3 (seed §3.27) */

/* "NORMAL", "DOC", "L1", "L2", "CONGESTED" ("?" out of range). */
const char *bsf_adm_state_name(bsf_adm_state_t s);

/* The level `value` reaches among four increasing thresholds (UINT32_MAX: a level never
 * reached, for a resource that is not watched). */
bsf_adm_state_t bsf_adm_level(const uint32_t thresholds[BSF_ADM_LEVELS], uint64_t value);

/* Anti-flapping (seed §3.4 stateChangeSampleCount): the state becomes the candidate once it
 * was the candidate for `sample_count` samples in a row (0 counts as 1). */
typedef struct {
    bsf_adm_state_t state, candidate;
    uint32_t streak; /* consecutive samples of `candidate` */
} bsf_adm_machine_t;

/* One sample with its candidate state. Returns the state. */
bsf_adm_state_t bsf_adm_machine_step(bsf_adm_machine_t *m, bsf_adm_state_t candidate,
                                     uint32_t sample_count);

/* How requests are shed in each state. */
typedef struct {
    bool by_percentage;
    uint32_t discard_priority[BSF_ADM_LEVELS];               /* 32: nothing is discarded */
    uint8_t discard_pct[BSF_ADM_LEVELS][BSF_ADM_PRIORITY_MAX + 1];
} bsf_adm_shedding_t;

/* Whether a request of `priority` (over 31 counts as 31) is discarded in state `s`; `draw`
 * is uniform in 0..99 (used by the percentage mode only). Never in NORMAL. */
bool bsf_adm_discard(const bsf_adm_shedding_t *sh, bsf_adm_state_t s, uint32_t priority,
                     uint32_t draw);

/* Overload levels (seed §3.27): per resource, an onset (enter) and an abatement (leave)
 * value per level, abatement <= onset, both increasing with the level. The level rises to
 * the highest whose onset the value reaches, and falls from level k only once the value is
 * below abatement k (then to the level the value supports). 0 is no overload. */
typedef struct {
    uint32_t onset[BSF_ADM_OVERLOAD_LEVELS], abatement[BSF_ADM_OVERLOAD_LEVELS];
} bsf_adm_overload_thresholds_t;

/* The new level of one resource at `value`, from `current` (0..3). */
unsigned bsf_adm_overload_level(const bsf_adm_overload_thresholds_t *t, unsigned current,
                                uint64_t value);

/* SBI operations with a default priority (seed §3.4 table). */
typedef enum {
    BSF_ADM_OP_DISCOVERY = 0, /* GET .../pcfBindings, pcfUeBindings, pcfMbsBindings */
    BSF_ADM_OP_REGISTER,      /* POST */
    BSF_ADM_OP_DEREGISTER,    /* DELETE */
    BSF_ADM_OP_UPDATE,        /* PATCH */
    BSF_ADM_OP_OTHER,         /* anything else (errors, unknown routes) */
    BSF_ADM_OP_COUNT
} bsf_adm_op_t;

/* "discovery", "register", "deregister", "update", "other". */
const char *bsf_adm_op_name(bsf_adm_op_t op);

/* The operation of a request from its method alone (the route is checked later: a request
 * for no resource gets its method's priority, which only matters while shedding). */
bsf_adm_op_t bsf_adm_op_of(const char *method);

/* A 3gpp-Sbi-Message-Priority value: 0..31, or -1 when it is not a number in that range
 * (the default applies then, seed §3.4). */
int bsf_adm_priority_parse(const char *value);

/* Configuration lists (items separated by '\n'). Each returns 0, or -1 with the reason.
 *   levels:       four strictly increasing numbers from 1 to max ("60\n70\n75\n80")
 *   discard priorities: four not increasing numbers from 0 to 32 (32: nothing is discarded)
 *   percentages:  "STATE LO-HI:PCT [LO-HI:PCT...]" items, STATE one of DOC L1 L2 CONGESTED
 *   overload:     three "ONSET:ABATEMENT" items (L1, L2, L3), 1..max, abatement <= onset,
 *                 both increasing ("44:41\n49:47\n52:50")
 *   op values:    "discovery=N", "register=N", "deregister=N", "update=N", "other=N", N 0..max
 *                 (priorities, rates); operations not named keep their value */
int bsf_adm_parse_levels(const char *list, uint32_t max, uint32_t out[BSF_ADM_LEVELS],
                         char *why, size_t cap);
int bsf_adm_parse_discard_priorities(const char *list, uint32_t out[BSF_ADM_LEVELS], char *why,
                                     size_t cap);
int bsf_adm_parse_percentages(const char *list,
                              uint8_t out[BSF_ADM_LEVELS][BSF_ADM_PRIORITY_MAX + 1], char *why,
                              size_t cap);
int bsf_adm_parse_overload(const char *list, uint32_t max, bsf_adm_overload_thresholds_t *out,
                           char *why, size_t cap);
int bsf_adm_parse_op_values(const char *list, uint32_t max, uint32_t out[BSF_ADM_OP_COUNT],
                            char *why, size_t cap);

/* A token bucket (seed §3.28): `rate` tokens per second, at most `burst` kept. */
typedef struct {
    uint64_t last_ns;
    double tokens;
} bsf_adm_bucket_t;

/* Takes one token at `now_ns`: true when there was one. rate 0 admits everything. */
bool bsf_adm_bucket_take(bsf_adm_bucket_t *b, uint32_t rate, uint32_t burst, uint64_t now_ns);

#endif
