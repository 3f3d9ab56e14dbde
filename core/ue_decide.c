#include "core/ue_decide.h"

#include <string.h>

#include "core/discovery.h"

static void replace(bsf_ue_decision_t *out, const bsf_pcf_ue_binding_t *by,
                    const bsf_ue_binding_view_t *old)
{
    if (out->n_replaced == BSF_UE_MAX_REPLACED)
        return;
    out->replaced[out->n_replaced] = old;
    out->reason[out->n_replaced++] = bsf_pcf_ue_binding_same_pcf(by, old->binding)
                                         ? BSF_REASON_REREGISTERED
                                         : BSF_REASON_REPLACED_BY_COLLISION;
}

void bsf_decide_ue_register(const bsf_pcf_ue_binding_t *req,
                            const bsf_ue_binding_view_t *candidates, size_t n,
                            bsf_ue_decision_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++)
        replace(out, req, &candidates[i]);
}

void bsf_decide_replicated_ue_registration(const bsf_ue_binding_view_t *remote,
                                           const bsf_ue_binding_view_t *candidates, size_t n,
                                           uint16_t own_site, bsf_ue_decision_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        const bsf_ue_binding_view_t *c = &candidates[i];
        if (bsf_binding_id_site(&c->id) != own_site ||
            memcmp(c->id.b, remote->id.b, sizeof c->id.b) == 0)
            continue;
        if (bsf_discovery_recency_cmp(remote->created_hlc, &remote->id, c->created_hlc,
                                      &c->id) > 0)
            replace(out, remote->binding, c);
    }
}
