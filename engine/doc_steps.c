/* Command steps shared by the UE and MBS binding commands. */
#include "engine/doc_steps.h"

#include <errno.h>
#include <string.h>

#include "common/diag.h"
#include "projections/mbs_projection.h"
#include "projections/ue_projection.h"

/* Storage for a binding of any document kind. */
typedef union {
    bsf_pcf_ue_binding_t ue;
    bsf_pcf_mbs_binding_t mbs;
} any_binding_t;

/* What a kind's steps name: the 404 detail before " with id <id>", the kind in log lines,
 * its commands and its events. */
typedef struct {
    const char *what;
    const char *label;
    bsf_command_kind_t register_kind, update_kind;
    bsf_event_type_t registered, updated, deregistered;
} kind_info_t;

static const kind_info_t kinds[] = {
    [BSF_ENGINE_DOC_UE] = {"no PCF for a UE binding", "UE binding", BSF_CMD_UE_REGISTER,
                           BSF_CMD_UE_UPDATE, BSF_EVENT_UE_BINDING_REGISTERED,
                           BSF_EVENT_UE_BINDING_UPDATED, BSF_EVENT_UE_BINDING_DEREGISTERED},
    [BSF_ENGINE_DOC_MBS] = {"no PCF for an MBS session binding", "MBS binding",
                            BSF_CMD_MBS_REGISTER, BSF_CMD_MBS_UPDATE,
                            BSF_EVENT_MBS_BINDING_REGISTERED, BSF_EVENT_MBS_BINDING_UPDATED,
                            BSF_EVENT_MBS_BINDING_DEREGISTERED},
};

/* cmd's merge patch applied to `current` into `updated`; false, with nothing written, when
 * the patch changes nothing. */
static bool patch(bsf_engine_doc_kind_t k, const bsf_command_t *cmd,
                  const any_binding_t *current, any_binding_t *updated)
{
    if (k == BSF_ENGINE_DOC_UE) {
        if (bsf_pcf_ue_binding_patch_is_empty(&cmd->ue_patch))
            return false;
        bsf_pcf_ue_binding_patch_apply(&current->ue, &cmd->ue_patch, &updated->ue);
        return true;
    }
    if (bsf_pcf_mbs_binding_patch_is_empty(&cmd->mbs_patch))
        return false;
    bsf_pcf_mbs_binding_patch_apply(&current->mbs, &cmd->mbs_patch, &updated->mbs);
    return true;
}

int bsf_engine_doc_encode(bsf_engine_doc_kind_t k, const void *binding, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    bsf_engine_packer_reset(&pk, out);
    int rc = k == BSF_ENGINE_DOC_UE ? bsf_pcf_ue_binding_encode(binding, &pk)
                                    : bsf_pcf_mbs_binding_encode(binding, &pk);
    return rc ? -ENOMEM : 0;
}

int bsf_engine_doc_get_live(bsf_engine_t *e, MDB_txn *txn, bsf_engine_doc_kind_t k,
                            const bsf_binding_id_t *id, msgpack_zone *zone, bsf_record_t *rec,
                            void *out)
{
    const bsf_projection_t *p = &bsf_engine_store(e)->proj;
    return k == BSF_ENGINE_DOC_UE ? bsf_ue_projection_get_live(p, txn, id, zone, rec, out)
                                  : bsf_mbs_projection_get_live(p, txn, id, zone, rec, out);
}

void bsf_engine_doc_found_init(bsf_engine_doc_found_t *f, bsf_engine_t *e, MDB_txn *txn,
                               bsf_engine_doc_kind_t k)
{
    f->e = e;
    f->txn = txn;
    f->k = k;
    f->n = 0;
    f->rc = 0;
}

bool bsf_engine_doc_found_visit(void *ctx, const bsf_binding_id_t *id)
{
    bsf_engine_doc_found_t *f = ctx;
    if (f->n == BSF_ENGINE_DOC_MAX_FOUND)
        return true; /* full from an earlier walk (MBS: the TMGI's, then the SSM's) */
    for (size_t i = 0; i < f->n; i++)
        if (memcmp(f->ids[i].b, id->b, 16) == 0)
            return false; /* named again by another index value */
    void *slot = f->k == BSF_ENGINE_DOC_UE ? (void *)&f->bindings.ue[f->n]
                                           : (void *)&f->bindings.mbs[f->n];
    bsf_record_t rec;
    int rc = bsf_engine_doc_get_live(f->e, f->txn, f->k, id, bsf_engine_zone(f->e), &rec, slot);
    if (rc == MDB_NOTFOUND)
        return false;
    if (rc) {
        f->rc = rc;
        return true;
    }
    f->ids[f->n] = *id;
    f->created[f->n] = rec.created_hlc;
    return ++f->n == BSF_ENGINE_DOC_MAX_FOUND;
}

/* The live binding cmd->id into `out` (its record in *rec); refuses the command (404) when
 * there is none: 0 with *found false. */
static int load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                     bsf_engine_doc_kind_t k, bsf_record_t *rec, void *out, bool *found)
{
    *found = false;
    int rc = bsf_engine_doc_get_live(e, txn, k, &cmd->id, &cmd->zone, rec, out);
    if (rc == MDB_NOTFOUND) {
        char id[BSF_BINDING_ID_TEXT_LEN + 1];
        bsf_binding_id_format(&cmd->id, id);
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "%s with id %s",
                        kinds[k].what, id);
        return 0;
    }
    *found = rc == 0;
    return rc;
}

/* Emits `ev` carrying `binding` (of kind k) for cmd, then encodes the binding into cmd->body:
 * 0, what bsf_engine_emit returns, or -ENOMEM. */
static int emit_and_encode(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                           bsf_engine_doc_kind_t k, bsf_event_t *ev, const void *binding)
{
    if (k == BSF_ENGINE_DOC_UE)
        ev->ue_binding = binding;
    else
        ev->mbs_binding = binding;
    int rc = bsf_engine_emit(e, txn, ev, &cmd->log_position);
    return rc ? rc : bsf_engine_doc_encode(k, binding, &cmd->body);
}

int bsf_engine_doc_emit_registered(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                                   bsf_engine_doc_kind_t k)
{
    bsf_event_t ev = {.type = kinds[k].registered, .binding_id = cmd->id, .origin_ts_ms = -1,
                      .sender_ts_ms = -1};
    const void *binding = k == BSF_ENGINE_DOC_UE ? (const void *)&cmd->ue_binding
                                                 : (const void *)&cmd->mbs_binding;
    return emit_and_encode(e, txn, cmd, k, &ev, binding);
}

int bsf_engine_doc_update(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                          bsf_engine_doc_kind_t k)
{
    bsf_record_t rec;
    any_binding_t current, updated;
    bool found;
    int rc = load_live(e, txn, cmd, k, &rec, &current, &found);
    if (rc || !found)
        return rc;
    if (!patch(k, cmd, &current, &updated))
        return bsf_engine_doc_encode(k, &current, &cmd->body);
    bsf_event_t ev = {.type = kinds[k].updated, .binding_id = cmd->id,
                      .created_hlc = rec.created_hlc, .origin_ts_ms = -1, .sender_ts_ms = -1};
    return emit_and_encode(e, txn, cmd, k, &ev, &updated);
}

int bsf_engine_doc_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              bsf_engine_doc_kind_t k)
{
    bsf_record_t rec;
    any_binding_t current;
    bool found;
    int rc = load_live(e, txn, cmd, k, &rec, &current, &found);
    if (rc || !found)
        return rc;
    return bsf_engine_emit_deregistered(e, txn, kinds[k].deregistered, &cmd->id,
                                        cmd->reason ? cmd->reason : BSF_REASON_PCF_REQUEST, NULL,
                                        &cmd->log_position);
}

int bsf_engine_emit_deregistered(bsf_engine_t *e, MDB_txn *txn, bsf_event_type_t type,
                                 const bsf_binding_id_t *id, bsf_dereg_reason_t reason,
                                 const bsf_binding_id_t *by, uint64_t *pos)
{
    bsf_event_t ev = {.type = type, .binding_id = *id, .reason = reason,
                      .has_replaced_by = by != NULL};
    if (by)
        ev.replaced_by = *by;
    return bsf_engine_emit(e, txn, &ev, pos);
}

int bsf_engine_doc_run(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                       const bsf_engine_doc_rules_t *r)
{
    if (cmd->kind == kinds[r->kind].register_kind)
        return r->run_register(e, txn, cmd);
    if (cmd->kind == kinds[r->kind].update_kind)
        return bsf_engine_doc_update(e, txn, cmd, r->kind);
    return bsf_engine_doc_deregister(e, txn, cmd, r->kind);
}

int bsf_engine_doc_replace_collided(bsf_engine_t *e, MDB_txn *txn, bsf_engine_doc_kind_t k,
                                    bsf_apply_batch_t *b, const bsf_binding_id_t *victim,
                                    bsf_dereg_reason_t reason, const bsf_binding_id_t *by)
{
    if (bsf_engine_behind_own_log(e)) {
        b->replace_held++;
        BSF_WARN("engine", "cross-site %s collision left unresolved: this site is still "
                           "applying its own events from the replicated log", kinds[k].label);
        return 0;
    }
    int rc =
        bsf_engine_emit_deregistered(e, txn, kinds[k].deregistered, victim, reason, by, NULL);
    if (rc == 0)
        b->replaced++;
    return rc;
}

int bsf_engine_doc_resolve_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                     const bsf_binding_id_t *id, const bsf_engine_doc_rules_t *r)
{
    bsf_record_t rec;
    any_binding_t remote;
    msgpack_zone_clear(bsf_engine_zone(e));
    int rc = bsf_engine_doc_get_live(e, txn, r->kind, id, bsf_engine_zone(e), &rec, &remote);
    if (rc)
        return rc == MDB_NOTFOUND ? 0 : rc;
    return r->collision(e, txn, b, id, rec.created_hlc, &remote);
}

void bsf_engine_packer_reset(msgpack_packer *pk, msgpack_sbuffer *out)
{
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(pk, out, msgpack_sbuffer_write);
}
