/* The command steps the document-style binding kinds (PCF for a UE, PCF for an MBS session;
 * engine/ue_commands.c, engine/mbs_commands.c) share: loading the live record a command
 * names, and emitting a deregistration. Engine thread only, inside its write transaction. */
#ifndef BSF_ENGINE_DOC_STEPS_H
#define BSF_ENGINE_DOC_STEPS_H

#include <stdbool.h>

#include "engine/engine_internal.h"

/* A projection's record lookup (bsf_ue_projection_get, bsf_mbs_projection_get). */
typedef int (*bsf_engine_record_get_fn)(const bsf_projection_t *p, MDB_txn *txn,
                                        const bsf_binding_id_t *id, bsf_record_t *out);

/* The record of cmd->id through `get` into *rec (pointing into the transaction's pages).
 * Returns 0 with *found true when it is live; 0 with *found false after refusing the command
 * (404 RESOURCE_CONTEXT_NOT_FOUND, detail "<what> with id <id>") when there is none or it is
 * deregistered; or the store error. */
int bsf_engine_load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                         bsf_engine_record_get_fn get, const char *what, bsf_record_t *rec,
                         bool *found);

/* Emits the deregistration event `type` of `id` for `reason`, replaced by `by` (or NULL);
 * its log position into *pos (when not NULL). Returns what bsf_engine_emit returns. */
int bsf_engine_emit_deregistered(bsf_engine_t *e, MDB_txn *txn, bsf_event_type_t type,
                                 const bsf_binding_id_t *id, bsf_dereg_reason_t reason,
                                 const bsf_binding_id_t *by, uint64_t *pos);

#endif
