/* The engine's commands for subscriptions to binding events: create, replace, delete, and
 * the removal of this site's expired subscriptions (BSF_CMD_SUB_EXPIRE, queued by the engine
 * itself). Engine thread only, inside its write transaction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "engine/doc_steps.h"
#include "engine/sub_commands.h"
#include "projections/sub_projection.h"

static int encode(const bsf_subscription_t *s, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    bsf_engine_packer_reset(&pk, out);
    return bsf_subscription_encode(s, &pk) ? -ENOMEM : 0;
}

static int run_create(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    bsf_engine_new_id(e, 0, &cmd->id);
    bsf_event_t ev = {.type = BSF_EVENT_SUBSCRIPTION_CREATED, .binding_id = cmd->id,
                      .subscription = &cmd->subscription, .origin_ts_ms = -1,
                      .sender_ts_ms = -1};
    int rc = bsf_engine_emit(e, txn, &ev, &cmd->log_position);
    return rc ? rc : encode(&cmd->subscription, &cmd->body);
}

static void refuse_missing(bsf_command_t *cmd)
{
    char id[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&cmd->id, id);
    cmd->status = BSF_CMD_REFUSED;
    bsf_problem_set(&cmd->problem, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND,
                    "no subscription with id %s", id);
}

/* The live record of cmd->id: 0 with *found, or a store error. */
static int load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd, bsf_record_t *rec,
                     bool *found)
{
    int rc = bsf_sub_projection_get(&bsf_engine_store(e)->proj, txn, &cmd->id, rec);
    *found = rc == 0 && rec->state == BSF_RECORD_LIVE;
    if (rc == MDB_NOTFOUND || (rc == 0 && !*found)) {
        refuse_missing(cmd);
        return 0;
    }
    return rc;
}

/* Replace and delete, which act on the live subscription cmd->id (404 when there is none). */
static int run_on_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_record_t rec;
    bool found;
    int rc = load_live(e, txn, cmd, &rec, &found);
    if (rc || !found)
        return rc;
    if (cmd->kind == BSF_CMD_SUB_DELETE)
        return bsf_engine_emit_deregistered(e, txn, BSF_EVENT_SUBSCRIPTION_REMOVED, &cmd->id,
                                            BSF_REASON_UNSUBSCRIBED, NULL, &cmd->log_position);
    bsf_event_t ev = {.type = BSF_EVENT_SUBSCRIPTION_REPLACED, .binding_id = cmd->id,
                      .subscription = &cmd->subscription, .created_hlc = rec.created_hlc,
                      .origin_ts_ms = -1, .sender_ts_ms = -1};
    if ((rc = bsf_engine_emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return encode(&cmd->subscription, &cmd->body);
}

typedef struct {
    uint16_t site;
    bsf_binding_id_t ids[BSF_SUB_EXPIRE_BATCH];
    size_t n;
} expired_t;

static bool collect_expired(void *ctx, const bsf_binding_id_t *id)
{
    expired_t *x = ctx;
    /* Each site ends its own subscriptions: one removal event per subscription. */
    if (bsf_binding_id_site(id) == x->site)
        x->ids[x->n++] = *id;
    return x->n == BSF_SUB_EXPIRE_BATCH;
}

static int run_expire(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    expired_t *x = msgpack_zone_malloc(bsf_engine_zone(e), sizeof *x);
    if (!x)
        return -ENOMEM;
    x->site = bsf_engine_site(e);
    x->n = 0;
    /* Ids first, removals after: the removals change the index the cursor walks. */
    int rc = bsf_sub_projection_expired(&bsf_engine_store(e)->proj, txn,
                                        (int64_t)bsf_clock_wall_ms(), collect_expired, x);
    for (size_t i = 0; !rc && i < x->n; i++)
        rc = bsf_engine_emit_deregistered(e, txn, BSF_EVENT_SUBSCRIPTION_REMOVED, &x->ids[i],
                                          BSF_REASON_EXPIRED, NULL, &cmd->log_position);
    if (!rc && x->n)
        BSF_INFO("engine", "%zu expired subscription(s) removed", x->n);
    cmd->id = (bsf_binding_id_t){{0}};
    return rc;
}

int bsf_engine_run_sub_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (cmd->kind == BSF_CMD_SUB_CREATE)
        return run_create(e, txn, cmd);
    if (cmd->kind == BSF_CMD_SUB_REPLACE || cmd->kind == BSF_CMD_SUB_DELETE)
        return run_on_live(e, txn, cmd);
    return run_expire(e, txn, cmd);
}

bool bsf_engine_sub_expiry_due(bsf_store_t *s, int64_t now_ms, uint16_t site)
{
    MDB_txn *txn;
    if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
        return false;
    expired_t *x = malloc(sizeof *x);
    bool due = false;
    if (x) {
        x->site = site;
        x->n = 0;
        due = bsf_sub_projection_expired(&s->proj, txn, now_ms, collect_expired, x) == 0 &&
              x->n > 0;
        free(x);
    }
    mdb_txn_abort(txn);
    return due;
}
