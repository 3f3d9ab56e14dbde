#include "core/decide.h"

#include "core/discovery.h"

#include <string.h>

bool bsf_para_com_matches(const bsf_para_com_t *pc, const bsf_pcf_binding_t *b)
{
    if (!pc->present || (!pc->supi && !pc->dnn && !pc->has_snssai))
        return false;
    if (pc->supi && (!b->supi || strcmp(pc->supi, b->supi) != 0))
        return false;
    if (pc->dnn && (!b->dnn || !bsf_dnn_equal(pc->dnn, b->dnn)))
        return false;
    if (pc->has_snssai && (!b->has_snssai || !bsf_snssai_equal(&pc->snssai, &b->snssai)))
        return false;
    return true;
}

bool bsf_registrations_collide(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b)
{
    return a->supi && b->supi && strcmp(a->supi, b->supi) == 0 && a->dnn && b->dnn &&
           bsf_dnn_equal(a->dnn, b->dnn) && a->has_snssai && b->has_snssai &&
           bsf_snssai_equal(&a->snssai, &b->snssai) && bsf_pcf_binding_share_ue_address(a, b);
}

/* Seed §3.21 precedence: origination timestamps when both are valid and differ, then sender
 * timestamps likewise, then arrival order (the request in hand arrived last). */
static bool request_is_newer(const bsf_register_request_t *req, const bsf_binding_view_t *old)
{
    if (req->origin_ts_ms >= 0 && old->origin_ts_ms >= 0 && req->origin_ts_ms != old->origin_ts_ms)
        return req->origin_ts_ms > old->origin_ts_ms;
    if (req->sender_ts_ms >= 0 && old->sender_ts_ms >= 0 && req->sender_ts_ms != old->sender_ts_ms)
        return req->sender_ts_ms > old->sender_ts_ms;
    return true;
}

static bool more_recent(const bsf_binding_view_t *a, const bsf_binding_view_t *b)
{
    return bsf_discovery_recency_cmp(a->created_hlc, &a->id, b->created_hlc, &b->id) > 0;
}

void bsf_decide_register(const bsf_register_request_t *req, const bsf_binding_view_t *candidates,
                         size_t n, const bsf_decide_config_t *cfg, bsf_register_decision_t *out)
{
    memset(out, 0, sizeof *out);
    out->outcome = BSF_REGISTER_ACCEPT;
    const bsf_pcf_binding_t *b = req->binding;

    if (b->para_com.present) {
        const bsf_binding_view_t *bound = NULL;
        /* Bound to this same PCF is no conflict: the registration proceeds (and a duplicate
         * is then replaced as a re-registration). */
        for (size_t i = 0; i < n; i++)
            if (bsf_para_com_matches(&b->para_com, candidates[i].binding) &&
                !bsf_pcf_binding_same_pcf(b, candidates[i].binding) &&
                (!bound || more_recent(&candidates[i], bound)))
                bound = &candidates[i];
        if (bound) {
            out->outcome = BSF_REGISTER_REJECT_SAME_PCF;
            out->existing = bound;
            bsf_problem_set(&out->problem, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND,
                            "a PCF binding already exists for the paraCom combination");
            return;
        }
    }
    if (!cfg->collision_detection)
        return;
    for (size_t i = 0; i < n; i++) {
        const bsf_binding_view_t *old = &candidates[i];
        if (!bsf_registrations_collide(b, old->binding))
            continue;
        bool same_pcf = bsf_pcf_binding_same_pcf(b, old->binding);
        if (!same_pcf && !request_is_newer(req, old)) {
            out->outcome = BSF_REGISTER_REJECT_COLLISION;
            out->existing = old;
            out->n_replaced = 0;
            bsf_problem_set(&out->problem, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND,
                            "Existing binding information found in DB");
            return;
        }
        if (out->n_replaced < BSF_MAX_REPLACED) {
            out->replaced[out->n_replaced] = old;
            out->replaced_reason[out->n_replaced] =
                same_pcf ? BSF_REASON_REREGISTERED : BSF_REASON_REPLACED_BY_COLLISION;
            out->n_replaced++;
        }
    }
}
