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

/* Precedence of two colliding registrations that is the same at every site (seed §3.21 made
 * deterministic across sites): the origination timestamps when both are valid and differ,
 * then the sender timestamps likewise, then the created HLC, then the creating site (the
 * higher wins), then the binding id. >0 when `a` is the newer, <0 when `b` is, 0 when they
 * are the same registration. */
int bsf_registration_precedence_cmp(const bsf_binding_view_t *a, const bsf_binding_view_t *b);

/* Cross-site collisions. `remote` is a live registration made at another site, just applied
 * here; `candidates` are the live bindings sharing a UE address with it. Only the site that
 * created a binding deregisters it, so every replaced binding is one of `own_site`'s: those
 * that collide with `remote` and lose to it by bsf_registration_precedence_cmp. The decision
 * is always BSF_REGISTER_ACCEPT; `replaced` / `replaced_reason` list them. */
void bsf_decide_replicated_registration(const bsf_binding_view_t *remote,
                                        const bsf_binding_view_t *candidates, size_t n_candidates,
                                        uint16_t own_site, const bsf_decide_config_t *cfg,
                                        bsf_register_decision_t *out);

/* True when the stored binding matches every member present in the paraCom. */
bool bsf_para_com_matches(const bsf_para_com_t *pc, const bsf_pcf_binding_t *b);

/* True when the two registrations collide (same SUPI, DNN, S-NSSAI and a shared UE address). */
bool bsf_registrations_collide(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b);

#endif
