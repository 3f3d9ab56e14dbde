/* Command steps shared by the UE and MBS binding commands. */
#include "engine/doc_steps.h"

int bsf_engine_load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                         bsf_engine_record_get_fn get, const char *what, bsf_record_t *rec,
                         bool *found)
{
    *found = false;
    int rc = get(&bsf_engine_store(e)->proj, txn, &cmd->id, rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec->state != BSF_RECORD_LIVE)) {
        char id[BSF_BINDING_ID_TEXT_LEN + 1];
        bsf_binding_id_format(&cmd->id, id);
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "%s with id %s",
                        what, id);
        return 0;
    }
    if (rc)
        return rc;
    *found = true;
    return 0;
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
