/* The engine's side of the binding audit (seed §3.34): the audit outcome command, the
 * version check that keeps a decision made on an older snapshot from acting on a binding the
 * PCF has touched since, and the removal notification of the deletion log (§3.34.1). Engine
 * thread, inside the write transaction. */
#include <string.h>

#include "engine/engine_internal.h"
#include "projections/audit_projection.h"

int bsf_engine_check_expected(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              const bsf_record_t *rec, int *rc)
{
    *rc = 0;
    if (!cmd->expect_hlc)
        return 0;
    bsf_audit_record_t a;
    int got = bsf_audit_projection_get(&bsf_engine_store(e)->proj, txn, &cmd->id, &a);
    if (got && got != MDB_NOTFOUND) {
        *rc = got;
        return -1;
    }
    uint64_t audit_hlc = got == 0 ? a.hlc : 0;
    if (rec->hlc == cmd->expect_hlc && audit_hlc == cmd->expect_audit_hlc)
        return 0;
    cmd->status = BSF_CMD_REFUSED;
    bsf_problem_set(&cmd->problem, BSF_CAUSE_MODIFICATION_NOT_ALLOWED,
                    "the binding changed since it was audited; the audit outcome is dropped");
    return -1;
}

int bsf_engine_note_removal(bsf_engine_t *e, MDB_txn *txn, const bsf_binding_id_t *id,
                            const bsf_record_t *rec, const bsf_pcf_binding_t *b,
                            bsf_dereg_reason_t reason)
{
    const bsf_engine_config_t *cfg = bsf_engine_config(e);
    if (!cfg->on_removal || reason == BSF_REASON_PCF_REQUEST ||
        reason == BSF_REASON_REPLACED_BY_COLLISION || reason == BSF_REASON_REREGISTERED)
        return 0;
    bsf_audit_record_t a;
    int rc = bsf_audit_projection_get(&bsf_engine_store(e)->proj, txn, id, &a);
    if (rc && rc != MDB_NOTFOUND)
        return rc;
    bsf_removal_t r = {.id = id,
                       .binding = b,
                       .created_hlc = rec->created_hlc,
                       .reason = reason,
                       .attempts = rc == 0 ? a.attempts : 0,
                       .last_audited_ms = rc == 0 ? a.last_audited_ms : -1};
    cfg->on_removal(cfg->removal_ctx, &r);
    return 0;
}

int bsf_engine_run_audit_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (!bsf_event_is_audit(cmd->audit_outcome)) {
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_SYSTEM_FAILURE, "not an audit outcome");
        return 0;
    }
    bsf_record_t rec;
    int rc = bsf_projection_get(&bsf_engine_store(e)->proj, txn, &cmd->id, &rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE)) {
        bsf_engine_refuse_not_found(cmd);
        return 0;
    }
    if (rc)
        return rc;
    if (bsf_engine_check_expected(e, txn, cmd, &rec, &rc))
        return rc;
    bsf_event_t ev = {.type = cmd->audit_outcome, .binding_id = cmd->id,
                      .audit = cmd->audit_state};
    return bsf_engine_emit(e, txn, &ev, &cmd->log_position);
}
