/* The engine's subscription commands (BSF_CMD_SUB_CREATE / _REPLACE / _DELETE / _EXPIRE,
 * engine/sub_commands.c). Engine thread only; not for gateways. */
#ifndef BSF_ENGINE_SUB_COMMANDS_H
#define BSF_ENGINE_SUB_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine_internal.h"

/* Removals of expired subscriptions per BSF_CMD_SUB_EXPIRE (one bounded transaction, like
 * tombstone collection; the engine queues another while more are due). */
#define BSF_SUB_EXPIRE_BATCH 1000

/* Runs a subscription command in `txn`: 0 with the outcome in cmd (create: the new id and
 * the subscription in cmd->body; replace: the subscription; 404 RESOURCE_CONTEXT_NOT_FOUND
 * for a replace or delete of an id with no live subscription), or a store error (the
 * transaction is aborted). */
int bsf_engine_run_sub_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd);

/* True when a subscription created by `site` expired before `now_ms` (a read transaction of
 * its own; false when it cannot be begun). Engine thread, between batches. */
bool bsf_engine_sub_expiry_due(bsf_store_t *s, int64_t now_ms, uint16_t site);

#endif
