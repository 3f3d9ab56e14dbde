/* The engine's commands for MBS session bindings. Rule (TS 29.521 5.3.x, the 403 answer of
 * CreatePCFMbsBinding): one PCF per MBS session: a registration for a session that has a
 * live binding (sharing its TMGI or its SSM) is refused with EXISTING_BINDING_INFO_FOUND and
 * the bound PCF's addresses. Across sites, two registrations of one session made before
 * either site saw the other's: the earlier created (created HLC, then id) stays, and the
 * later one's creating site deregisters it (replaced_by_collision), so the sites converge. */
#include <errno.h>
#include <string.h>

#include "core/discovery.h"
#include "engine/doc_steps.h"
#include "projections/mbs_projection.h"

#define MAX_MBS_CANDIDATES 16

typedef struct {
    bsf_engine_t *e;
    MDB_txn *txn;
    const bsf_mbs_session_id_t *session;
    bsf_binding_id_t ids[MAX_MBS_CANDIDATES];
    bsf_pcf_mbs_binding_t bindings[MAX_MBS_CANDIDATES];
    uint64_t created[MAX_MBS_CANDIDATES];
    size_t n;
    int rc;
} collect_t;

static const bsf_engine_doc_kind_t mbs_kind;

static bool collect_visit(void *ctx, const bsf_binding_id_t *id)
{
    collect_t *c = ctx;
    for (size_t i = 0; i < c->n; i++)
        if (memcmp(c->ids[i].b, id->b, 16) == 0)
            return false; /* found under its other identifier already */
    bsf_record_t rec;
    int rc = bsf_engine_doc_get_live(c->e, c->txn, &mbs_kind, id, bsf_engine_zone(c->e), &rec,
                                     &c->bindings[c->n]);
    if (rc == MDB_NOTFOUND)
        return false;
    if (rc) {
        c->rc = rc;
        return true;
    }
    c->ids[c->n] = *id;
    c->created[c->n] = rec.created_hlc;
    return ++c->n == MAX_MBS_CANDIDATES;
}

/* The live bindings sharing an identifier (TMGI or SSM) with `session`. */
static int collect(bsf_engine_t *e, MDB_txn *txn, const bsf_mbs_session_id_t *session,
                   collect_t *c)
{
    *c = (collect_t){.e = e, .txn = txn, .session = session};
    bsf_mbs_session_id_t one;
    for (int part = 0; part < 2; part++) {
        one = *session;
        one.has_nid = false;
        if (part == 0 ? !session->has_tmgi : !session->has_ssm)
            continue;
        one.has_ssm = part == 1;
        one.has_tmgi = part == 0;
        int rc = bsf_mbs_projection_ids(&bsf_engine_store(e)->proj, txn, &one, collect_visit, c);
        if (rc || c->rc)
            return rc ? rc : c->rc;
    }
    return 0;
}

/* The canonical msgpack of `b` (a bsf_pcf_mbs_binding_t) into `out`: 0 or -ENOMEM. */
static int encode(const void *b, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    bsf_engine_packer_reset(&pk, out);
    return bsf_pcf_mbs_binding_encode(b, &pk) ? -ENOMEM : 0;
}

/* The MbsBindingResp of the bound PCF: its pcfFqdn and pcfIpEndPoints. */
static int encode_resp(const bsf_pcf_mbs_binding_t *b, msgpack_sbuffer *out)
{
    bsf_pcf_mbs_binding_t resp = {.pcf_fqdn = b->pcf_fqdn,
                                  .pcf_ip_end_points = b->pcf_ip_end_points};
    return encode(&resp, out);
}

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    collect_t c;
    int rc = collect(e, txn, &cmd->mbs_binding.mbs_session_id, &c);
    if (rc)
        return rc;
    if (c.n) {
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND,
                        "the MBS session is already bound to a PCF");
        return encode_resp(&c.bindings[0], &cmd->body);
    }
    bsf_engine_new_id(e, 0, &cmd->id);
    bsf_event_t ev = {.type = BSF_EVENT_MBS_BINDING_REGISTERED, .binding_id = cmd->id,
                      .mbs_binding = &cmd->mbs_binding, .origin_ts_ms = -1,
                      .sender_ts_ms = -1};
    if ((rc = bsf_engine_emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return encode(&cmd->mbs_binding, &cmd->body);
}

static int decode(const bsf_record_t *rec, msgpack_zone *zone, void *out)
{
    return bsf_record_decode_mbs_binding(rec, zone, out);
}

static bool patch_is_empty(const bsf_command_t *cmd)
{
    return bsf_pcf_mbs_binding_patch_is_empty(&cmd->mbs_patch);
}

static void patch_apply(const void *current, const bsf_command_t *cmd, void *updated)
{
    bsf_pcf_mbs_binding_patch_apply(current, &cmd->mbs_patch, updated);
}

static void set_binding(bsf_event_t *ev, const void *binding)
{
    ev->mbs_binding = binding;
}

static const bsf_engine_doc_kind_t mbs_kind = {
    .get = bsf_mbs_projection_get,
    .what = "no PCF for an MBS session binding",
    .label = "MBS binding",
    .register_kind = BSF_CMD_MBS_REGISTER,
    .update_kind = BSF_CMD_MBS_UPDATE,
    .run_register = run_register,
    .updated = BSF_EVENT_MBS_BINDING_UPDATED,
    .deregistered = BSF_EVENT_MBS_BINDING_DEREGISTERED,
    .decode = decode,
    .patch_is_empty = patch_is_empty,
    .patch_apply = patch_apply,
    .set_binding = set_binding,
    .encode = encode,
};

int bsf_engine_run_mbs_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    return bsf_engine_doc_run(e, txn, cmd, &mbs_kind);
}

int bsf_engine_resolve_mbs_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                     const bsf_binding_id_t *id)
{
    bsf_record_t rec;
    bsf_pcf_mbs_binding_t remote;
    int rc = bsf_engine_doc_get_remote(e, txn, &mbs_kind, id, &rec, &remote);
    if (rc)
        return rc == MDB_NOTFOUND ? 0 : rc; /* not found: already deregistered */
    uint64_t remote_created = rec.created_hlc;
    collect_t c;
    if ((rc = collect(e, txn, &remote.mbs_session_id, &c)))
        return rc;
    for (size_t i = 0; i < c.n; i++) {
        if (bsf_binding_id_site(&c.ids[i]) != bsf_engine_site(e) ||
            bsf_discovery_recency_cmp(c.created[i], &c.ids[i], remote_created, id) <= 0)
            continue; /* not ours, or ours is the earlier: the other site removes its own */
        if ((rc = bsf_engine_doc_replace_collided(e, txn, &mbs_kind, b, &c.ids[i],
                                                  BSF_REASON_REPLACED_BY_COLLISION, id)))
            return rc;
    }
    return 0;
}
