/* The decide step for PCF-for-UE registrations. Pure: the engine looks the candidates up
 * (the live UE bindings of the registration's SUPI) and turns the decision into events.
 *
 * Rule: a UE has one PCF for the UE. A registration for a SUPI that already has live UE
 * bindings replaces them: each is deregistered in the same transaction (reason
 * `reregistered` when it names the same PCF, `replaced_by_collision` otherwise, with
 * `replacedBy` the new id). Across sites, only a binding's creating site deregisters it: a
 * registration applied from another site replaces this site's own bindings of the SUPI that
 * it is more recent than (created HLC, then binding id: bsf_discovery_recency_cmp), so
 * every site converges on the most recent registration whatever the order of arrival. */
#ifndef BSF_CORE_UE_DECIDE_H
#define BSF_CORE_UE_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/event.h"
#include "core/pcf_ue_binding.h"

typedef struct {
    bsf_binding_id_t id;
    const bsf_pcf_ue_binding_t *binding;
    uint64_t created_hlc;
} bsf_ue_binding_view_t;

#define BSF_UE_MAX_REPLACED 16

typedef struct {
    size_t n_replaced;
    const bsf_ue_binding_view_t *replaced[BSF_UE_MAX_REPLACED];
    bsf_dereg_reason_t reason[BSF_UE_MAX_REPLACED];
} bsf_ue_decision_t;

/* A local registration of `req`: every candidate (same SUPI, live) is replaced (at most
 * BSF_UE_MAX_REPLACED; the rest stay, which cannot happen while the rule holds). */
void bsf_decide_ue_register(const bsf_pcf_ue_binding_t *req,
                            const bsf_ue_binding_view_t *candidates, size_t n,
                            bsf_ue_decision_t *out);

/* A registration `remote` of another site, just applied: the candidates created by
 * `own_site` (other than remote) that remote is more recent than are replaced. */
void bsf_decide_replicated_ue_registration(const bsf_ue_binding_view_t *remote,
                                           const bsf_ue_binding_view_t *candidates, size_t n,
                                           uint16_t own_site, bsf_ue_decision_t *out);

#endif
