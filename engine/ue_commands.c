/* The engine's commands for PCF-for-UE bindings: register (replacing the UE's earlier
 * bindings, core/ue_decide.h), update (merge patch), deregister, and the cross-site rule for
 * other sites' registrations. */
#include <string.h>

#include "core/ue_decide.h"
#include "engine/doc_steps.h"
#include "projections/ue_projection.h"

#define MAX_UE_CANDIDATES BSF_UE_MAX_REPLACED

typedef struct {
    bsf_engine_t *e;
    MDB_txn *txn;
    bsf_ue_binding_view_t *views;
    bsf_pcf_ue_binding_t *bindings;
    size_t n;
    int rc;
} collect_t;

static bool collect_visit(void *ctx, const bsf_binding_id_t *id)
{
    collect_t *c = ctx;
    bsf_record_t rec;
    int rc = bsf_engine_doc_get_live(c->e, c->txn, BSF_ENGINE_DOC_UE, id, bsf_engine_zone(c->e),
                                     &rec, &c->bindings[c->n]);
    if (rc == MDB_NOTFOUND)
        return false;
    if (rc) {
        c->rc = rc;
        return true;
    }
    c->views[c->n] = (bsf_ue_binding_view_t){*id, &c->bindings[c->n], rec.created_hlc};
    return ++c->n == MAX_UE_CANDIDATES;
}

/* The live UE bindings of `supi`. */
static int collect(bsf_engine_t *e, MDB_txn *txn, const char *supi, collect_t *c)
{
    c->e = e;
    c->txn = txn;
    c->n = 0;
    c->rc = 0;
    int rc = bsf_ue_projection_ids(&bsf_engine_store(e)->proj, txn, supi, false, collect_visit, c);
    return rc ? rc : c->rc;
}

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    bsf_ue_binding_view_t views[MAX_UE_CANDIDATES];
    bsf_pcf_ue_binding_t bindings[MAX_UE_CANDIDATES];
    collect_t c = {.views = views, .bindings = bindings};
    int rc = collect(e, txn, cmd->ue_binding.supi, &c);
    if (rc)
        return rc;
    bsf_ue_decision_t d;
    bsf_decide_ue_register(&cmd->ue_binding, views, c.n, &d);
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

int bsf_engine_run_ue_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    return bsf_engine_doc_run(e, txn, cmd, BSF_ENGINE_DOC_UE, run_register);
}

/* The UE rule for another site's registration (core/ue_decide.h). */
static int ue_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                        const bsf_binding_id_t *id, uint64_t created_hlc, const void *remote)
{
    const bsf_pcf_ue_binding_t *r = remote;
    bsf_ue_binding_view_t rv = {*id, r, created_hlc};
    bsf_ue_binding_view_t views[MAX_UE_CANDIDATES];
    bsf_pcf_ue_binding_t bindings[MAX_UE_CANDIDATES];
    collect_t c = {.views = views, .bindings = bindings};
    int rc = collect(e, txn, r->supi, &c);
    if (rc)
        return rc;
    bsf_ue_decision_t d;
    bsf_decide_replicated_ue_registration(&rv, views, c.n, bsf_engine_site(e), &d);
    for (size_t i = 0; i < d.n_replaced && rc == 0; i++)
        rc = bsf_engine_doc_replace_collided(e, txn, BSF_ENGINE_DOC_UE, b, &d.replaced[i]->id,
                                             d.reason[i], id);
    return rc;
}

int bsf_engine_resolve_ue_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                    const bsf_binding_id_t *id)
{
    return bsf_engine_doc_resolve_collision(e, txn, b, id, BSF_ENGINE_DOC_UE, ue_collision);
}
