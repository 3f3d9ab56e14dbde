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

static int ts_cmp(int64_t a, int64_t b, bool *decided)
{
    *decided = a >= 0 && b >= 0 && a != b;
    return *decided ? (a > b ? 1 : -1) : 0;
}

int bsf_registration_precedence_cmp(const bsf_binding_view_t *a, const bsf_binding_view_t *b)
{
    bool decided;
    int c = ts_cmp(a->origin_ts_ms, b->origin_ts_ms, &decided);
    if (decided)
        return c;
    c = ts_cmp(a->sender_ts_ms, b->sender_ts_ms, &decided);
    if (decided)
        return c;
    if (a->created_hlc != b->created_hlc)
        return a->created_hlc > b->created_hlc ? 1 : -1;
    uint16_t sa = bsf_binding_id_site(&a->id), sb = bsf_binding_id_site(&b->id);
    if (sa != sb)
        return sa > sb ? 1 : -1;
    c = memcmp(a->id.b, b->id.b, sizeof a->id.b);
    return c > 0 ? 1 : c < 0 ? -1 : 0;
}

void bsf_decide_replicated_registration(const bsf_binding_view_t *remote,
                                        const bsf_binding_view_t *candidates, size_t n,
                                        uint16_t own_site, const bsf_decide_config_t *cfg,
                                        bsf_register_decision_t *out)
{
    memset(out, 0, sizeof *out);
    out->outcome = BSF_REGISTER_ACCEPT;
    if (!cfg->collision_detection)
        return;
    for (size_t i = 0; i < n && out->n_replaced < BSF_MAX_REPLACED; i++) {
        const bsf_binding_view_t *own = &candidates[i];
        if (bsf_binding_id_site(&own->id) != own_site ||
            memcmp(own->id.b, remote->id.b, sizeof own->id.b) == 0 ||
            !bsf_registrations_collide(remote->binding, own->binding) ||
            bsf_registration_precedence_cmp(remote, own) <= 0)
            continue;
        out->replaced[out->n_replaced] = own;
        out->replaced_reason[out->n_replaced] =
            bsf_pcf_binding_same_pcf(remote->binding, own->binding)
                ? BSF_REASON_REREGISTERED
                : BSF_REASON_REPLACED_BY_COLLISION;
        out->n_replaced++;
    }
}
