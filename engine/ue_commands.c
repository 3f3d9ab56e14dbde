/* The engine's commands for PCF-for-UE bindings: register (replacing the UE's earlier
 * bindings, core/ue_decide.h), update (merge patch), deregister, and the cross-site rule for
 * other sites' registrations. */
#include <errno.h>
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

static const bsf_engine_doc_kind_t ue_kind;

static bool collect_visit(void *ctx, const bsf_binding_id_t *id)
{
    collect_t *c = ctx;
    bsf_record_t rec;
    int rc = bsf_engine_doc_get_live(c->e, c->txn, &ue_kind, id, bsf_engine_zone(c->e), &rec,
                                     &c->bindings[c->n]);
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

/* The canonical msgpack of `b` (a bsf_pcf_ue_binding_t) into `out`: 0 or -ENOMEM. */
static int encode(const void *b, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    bsf_engine_packer_reset(&pk, out);
    return bsf_pcf_ue_binding_encode(b, &pk) ? -ENOMEM : 0;
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
    bsf_event_t ev = {.type = BSF_EVENT_UE_BINDING_REGISTERED, .binding_id = cmd->id,
                      .ue_binding = &cmd->ue_binding, .origin_ts_ms = -1, .sender_ts_ms = -1};
    if ((rc = bsf_engine_emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return encode(&cmd->ue_binding, &cmd->body);
}

static int decode(const bsf_record_t *rec, msgpack_zone *zone, void *out)
{
    return bsf_record_decode_ue_binding(rec, zone, out);
}

static bool patch_is_empty(const bsf_command_t *cmd)
{
    return bsf_pcf_ue_binding_patch_is_empty(&cmd->ue_patch);
}

static void patch_apply(const void *current, const bsf_command_t *cmd, void *updated)
{
    bsf_pcf_ue_binding_patch_apply(current, &cmd->ue_patch, updated);
}

static void set_binding(bsf_event_t *ev, const void *binding)
{
    ev->ue_binding = binding;
}

static const bsf_engine_doc_kind_t ue_kind = {
    .get = bsf_ue_projection_get,
    .what = "no PCF for a UE binding",
    .label = "UE binding",
    .register_kind = BSF_CMD_UE_REGISTER,
    .update_kind = BSF_CMD_UE_UPDATE,
    .run_register = run_register,
    .updated = BSF_EVENT_UE_BINDING_UPDATED,
    .deregistered = BSF_EVENT_UE_BINDING_DEREGISTERED,
    .decode = decode,
    .patch_is_empty = patch_is_empty,
    .patch_apply = patch_apply,
    .set_binding = set_binding,
    .encode = encode,
};

int bsf_engine_run_ue_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    return bsf_engine_doc_run(e, txn, cmd, &ue_kind);
}

int bsf_engine_resolve_ue_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                    const bsf_binding_id_t *id)
{
    bsf_record_t rec;
    bsf_pcf_ue_binding_t remote;
    int rc = bsf_engine_doc_get_remote(e, txn, &ue_kind, id, &rec, &remote);
    if (rc)
        return rc == MDB_NOTFOUND ? 0 : rc; /* not found: already deregistered */
    bsf_ue_binding_view_t rv = {*id, &remote, rec.created_hlc};
    bsf_ue_binding_view_t views[MAX_UE_CANDIDATES];
    bsf_pcf_ue_binding_t bindings[MAX_UE_CANDIDATES];
    collect_t c = {.views = views, .bindings = bindings};
    if ((rc = collect(e, txn, remote.supi, &c)))
        return rc;
    bsf_ue_decision_t d;
    bsf_decide_replicated_ue_registration(&rv, views, c.n, bsf_engine_site(e), &d);
    for (size_t i = 0; i < d.n_replaced && rc == 0; i++)
        rc = bsf_engine_doc_replace_collided(e, txn, &ue_kind, b, &d.replaced[i]->id,
                                             d.reason[i], id);
    return rc;
}
