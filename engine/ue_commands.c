/* The engine's commands for PCF-for-UE bindings: register (replacing the UE's earlier
 * bindings, core/ue_decide.h), update (merge patch), deregister, and the cross-site rule for
 * other sites' registrations. */
#include "core/ue_decide.h"
#include "engine/doc_steps.h"
#include "projections/ue_projection.h"

_Static_assert(BSF_ENGINE_DOC_MAX_FOUND == BSF_UE_MAX_REPLACED,
               "every live binding of a SUPI can be replaced");

/* The live UE bindings of `supi` into `f`, and their views for core/ue_decide.h. */
static int collect(bsf_engine_t *e, MDB_txn *txn, const char *supi, bsf_engine_doc_found_t *f,
                   bsf_ue_binding_view_t *views)
{
    bsf_engine_doc_found_init(f, e, txn, BSF_ENGINE_DOC_UE);
    int rc = bsf_ue_projection_ids(&bsf_engine_store(e)->proj, txn, supi, false,
                                   bsf_engine_doc_found_visit, f);
    if (rc || f->rc)
        return rc ? rc : f->rc;
    for (size_t i = 0; i < f->n; i++)
        views[i] = (bsf_ue_binding_view_t){f->ids[i], &f->bindings.ue[i], f->created[i]};
    return 0;
}

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    bsf_ue_binding_view_t views[BSF_ENGINE_DOC_MAX_FOUND];
    bsf_engine_doc_found_t f;
    int rc = collect(e, txn, cmd->ue_binding.supi, &f, views);
    if (rc)
        return rc;
    bsf_ue_decision_t d;
    bsf_decide_ue_register(&cmd->ue_binding, views, f.n, &d);
    bsf_engine_new_id(e, d.n_replaced, &cmd->id);
    for (size_t i = 0; i < d.n_replaced; i++) {
        bsf_engine_note_replaced(e, "UE binding", &d.replaced[i]->id, &cmd->id, d.reason[i]);
        if ((rc = bsf_engine_emit_deregistered(e, txn, BSF_EVENT_UE_BINDING_DEREGISTERED,
                                               &d.replaced[i]->id, d.reason[i], &cmd->id,
                                               NULL)))
            return rc;
    }
    return bsf_engine_doc_emit_registered(e, txn, cmd, BSF_ENGINE_DOC_UE);
}

/* The UE rule for another site's registration (core/ue_decide.h). */
static int ue_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                        const bsf_binding_id_t *id, uint64_t created_hlc, const void *remote)
{
    const bsf_pcf_ue_binding_t *r = remote;
    bsf_ue_binding_view_t rv = {*id, r, created_hlc};
    bsf_ue_binding_view_t views[BSF_ENGINE_DOC_MAX_FOUND];
    bsf_engine_doc_found_t f;
    int rc = collect(e, txn, r->supi, &f, views);
    if (rc)
        return rc;
    bsf_ue_decision_t d;
    bsf_decide_replicated_ue_registration(&rv, views, f.n, bsf_engine_site(e), &d);
    for (size_t i = 0; i < d.n_replaced && rc == 0; i++)
        rc = bsf_engine_doc_replace_collided(e, txn, BSF_ENGINE_DOC_UE, b, &d.replaced[i]->id,
                                             d.reason[i], id);
    return rc;
}

const bsf_engine_doc_rules_t bsf_engine_ue_rules = {BSF_ENGINE_DOC_UE, run_register,
                                                    ue_collision};
