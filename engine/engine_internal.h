/* What the engine's command modules share (engine.c and ue_commands.c). All functions run on
 * the engine thread, inside its write transaction; not for gateways. */
#ifndef BSF_ENGINE_ENGINE_INTERNAL_H
#define BSF_ENGINE_ENGINE_INTERNAL_H

#include <lmdb.h>

#include "engine/command.h"
#include "engine/engine.h"
#include "engine/store.h"

/* Stamps `ev` (site, next sequence number, HLC; created HLC for registrations), appends and
 * applies it. Returns 0 or what bsf_store_write_event returns. */
int bsf_engine_emit(bsf_engine_t *e, MDB_txn *txn, bsf_event_t *ev, uint64_t *position);
/* A new binding id for a registration preceded by `events_before` events in the command. */
void bsf_engine_new_id(bsf_engine_t *e, size_t events_before, bsf_binding_id_t *out);
uint16_t bsf_engine_site(const bsf_engine_t *e);
/* The per-command scratch zone (cleared before each command). */
msgpack_zone *bsf_engine_zone(bsf_engine_t *e);
bsf_store_t *bsf_engine_store(bsf_engine_t *e);
const bsf_engine_config_t *bsf_engine_config(const bsf_engine_t *e);
/* True (and the command refused with INSUFFICIENT_STORAGE) when the store is at its reserve. */
bool bsf_engine_refuse_at_reserve(bsf_engine_t *e, bsf_command_t *cmd);
/* A binding of `kind` ("binding", "UE binding") replaced by the registration `by`: a DEBUG
 * line, and counted for the INFO summary the engine writes at most once a minute. */
void bsf_engine_note_replaced(bsf_engine_t *e, const char *kind, const bsf_binding_id_t *old,
                              const bsf_binding_id_t *by, bsf_dereg_reason_t reason);
/* True while this site's own events up to the floor are not all in the store. */
bool bsf_engine_behind_own_log(bsf_engine_t *e);

/* BSF_CMD_AUDIT (engine/audit_commands.c). Returns 0 (outcome in cmd) or a store error. */
int bsf_engine_run_audit_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd);
/* True (and cmd refused) when cmd->expect_hlc / expect_audit_hlc no longer hold for the live
 * binding whose record is `rec`. Returns -1 with *rc set on a store error. */
int bsf_engine_check_expected(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              const bsf_record_t *rec, int *rc);
/* Calls the configured on_removal for a binding about to be deregistered with `reason`
 * (nothing for PCF requests and collisions). Returns 0 or a store error. */
int bsf_engine_note_removal(bsf_engine_t *e, MDB_txn *txn, const bsf_binding_id_t *id,
                            const bsf_record_t *rec, const bsf_pcf_binding_t *b,
                            bsf_dereg_reason_t reason);
/* Refuses `cmd`: no live binding with its id. */
void bsf_engine_refuse_not_found(bsf_command_t *cmd);

#endif
