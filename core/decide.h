/* The decide step for registrations: given a validated request and the live bindings it may
 * conflict with, choose to accept it (and which older bindings it replaces) or to refuse
 * it. Pure: the caller looks the candidates up and turns the decision into events. */
#ifndef BSF_CORE_DECIDE_H
#define BSF_CORE_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/event.h"
#include "core/pcf_binding.h"
#include "core/problem.h"

/* A stored live binding as the decide step sees it. */
typedef struct {
    bsf_binding_id_t id;
    const bsf_pcf_binding_t *binding;
    uint64_t created_hlc;
    int64_t origin_ts_ms; /* -1 when absent */
    int64_t sender_ts_ms;
} bsf_binding_view_t;

typedef struct {
    const bsf_pcf_binding_t *binding; /* already decoded and rule-checked */
    int64_t origin_ts_ms;             /* -1 when absent or unparseable */
    int64_t sender_ts_ms;
} bsf_register_request_t;

typedef struct {
    bool collision_detection;
} bsf_decide_config_t;

#define BSF_MAX_REPLACED 16

typedef enum {
    BSF_REGISTER_ACCEPT,
    BSF_REGISTER_REJECT_SAME_PCF,  /* SamePcf: the paraCom combination is already bound */
    BSF_REGISTER_REJECT_COLLISION, /* a newer colliding registration exists */
} bsf_register_outcome_t;

typedef struct {
    bsf_register_outcome_t outcome;
    const bsf_binding_view_t *existing; /* the binding that made the request fail */
    size_t n_replaced;
    const bsf_binding_view_t *replaced[BSF_MAX_REPLACED];
    bsf_dereg_reason_t replaced_reason[BSF_MAX_REPLACED];
    bsf_problem_t problem;              /* set when refused */
} bsf_register_decision_t;

void bsf_decide_register(const bsf_register_request_t *req, const bsf_binding_view_t *candidates,
                         size_t n_candidates, const bsf_decide_config_t *cfg,
                         bsf_register_decision_t *out);

/* True when the stored binding matches every member present in the paraCom. */
bool bsf_para_com_matches(const bsf_para_com_t *pc, const bsf_pcf_binding_t *b);

/* True when the two registrations collide (same SUPI, DNN, S-NSSAI and a shared UE address). */
bool bsf_registrations_collide(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b);

#endif
