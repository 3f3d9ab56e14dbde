/* Command steps shared by the UE and MBS binding commands. */
#include "engine/doc_steps.h"

#include "common/diag.h"

/* Storage for a binding of any document kind. */
typedef union {
    bsf_pcf_ue_binding_t ue;
    bsf_pcf_mbs_binding_t mbs;
} any_binding_t;

int bsf_engine_doc_get_live(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                            const bsf_binding_id_t *id, msgpack_zone *zone, bsf_record_t *rec,
                            void *out)
{
    int rc = k->get(&bsf_engine_store(e)->proj, txn, id, rec);
    if (rc == 0 && rec->state != BSF_RECORD_LIVE)
        return MDB_NOTFOUND;
    if (rc)
        return rc;
    return k->decode(rec, zone, out) ? MDB_CORRUPTED : 0;
}

/* The live binding cmd->id into `out` (its record in *rec); refuses the command (404) when
 * there is none: 0 with *found false. */
static int load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                     const bsf_engine_doc_kind_t *k, bsf_record_t *rec, void *out, bool *found)
{
    *found = false;
    int rc = bsf_engine_doc_get_live(e, txn, k, &cmd->id, &cmd->zone, rec, out);
    if (rc == MDB_NOTFOUND) {
        char id[BSF_BINDING_ID_TEXT_LEN + 1];
        bsf_binding_id_format(&cmd->id, id);
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "%s with id %s",
                        k->what, id);
        return 0;
    }
    *found = rc == 0;
    return rc;
}

int bsf_engine_doc_update(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                          const bsf_engine_doc_kind_t *k)
{
    bsf_record_t rec;
    any_binding_t current, updated;
    bool found;
    int rc = load_live(e, txn, cmd, k, &rec, &current, &found);
    if (rc || !found)
        return rc;
    if (k->patch_is_empty(cmd))
        return k->encode(&current, &cmd->body);
    k->patch_apply(&current, cmd, &updated);
    bsf_event_t ev = {.type = k->updated, .binding_id = cmd->id, .created_hlc = rec.created_hlc,
                      .origin_ts_ms = -1, .sender_ts_ms = -1};
    k->set_binding(&ev, &updated);
    if ((rc = bsf_engine_emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return k->encode(&updated, &cmd->body);
}

int bsf_engine_doc_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              const bsf_engine_doc_kind_t *k)
{
    bsf_record_t rec;
    any_binding_t current;
    bool found;
    int rc = load_live(e, txn, cmd, k, &rec, &current, &found);
    if (rc || !found)
        return rc;
    return bsf_engine_emit_deregistered(e, txn, k->deregistered, &cmd->id,
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
                       const bsf_engine_doc_kind_t *k)
{
    if (cmd->kind == k->register_kind)
        return k->run_register(e, txn, cmd);
    if (cmd->kind == k->update_kind)
        return bsf_engine_doc_update(e, txn, cmd, k);
    return bsf_engine_doc_deregister(e, txn, cmd, k);
}

int bsf_engine_doc_replace_collided(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                                    bsf_apply_batch_t *b, const bsf_binding_id_t *victim,
                                    bsf_dereg_reason_t reason, const bsf_binding_id_t *by)
{
    if (bsf_engine_behind_own_log(e)) {
        b->replace_held++;
        BSF_WARN("engine", "cross-site %s collision left unresolved: this site is still "
                           "applying its own events from the replicated log", k->label);
        return 0;
    }
    int rc = bsf_engine_emit_deregistered(e, txn, k->deregistered, victim, reason, by, NULL);
    if (rc == 0)
        b->replaced++;
    return rc;
}

int bsf_engine_doc_get_remote(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                              const bsf_binding_id_t *id, bsf_record_t *rec, void *out)
{
    msgpack_zone_clear(bsf_engine_zone(e));
    return bsf_engine_doc_get_live(e, txn, k, id, bsf_engine_zone(e), rec, out);
}

void bsf_engine_packer_reset(msgpack_packer *pk, msgpack_sbuffer *out)
{
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(pk, out, msgpack_sbuffer_write);
}
