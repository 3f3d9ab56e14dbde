/* The engine's commands for MBS session bindings. Rule (TS 29.521 5.3.x, the 403 answer of
 * CreatePCFMbsBinding): one PCF per MBS session: a registration for a session that has a
 * live binding (sharing its TMGI or its SSM) is refused with EXISTING_BINDING_INFO_FOUND and
 * the bound PCF's addresses. Across sites, two registrations of one session made before
 * either site saw the other's: the earlier created (created HLC, then id) stays, and the
 * later one's creating site deregisters it (replaced_by_collision), so the sites converge. */
#include "core/discovery.h"
#include "engine/doc_steps.h"
#include "projections/mbs_projection.h"

/* The live bindings sharing an identifier (TMGI or SSM) with `session`. */
static int collect(bsf_engine_t *e, MDB_txn *txn, const bsf_mbs_session_id_t *session,
                   bsf_engine_doc_found_t *c)
{
    bsf_engine_doc_found_init(c, e, txn, BSF_ENGINE_DOC_MBS);
    bsf_mbs_session_id_t one;
    for (int part = 0; part < 2; part++) {
        one = *session;
        one.has_nid = false;
        if (part == 0 ? !session->has_tmgi : !session->has_ssm)
            continue;
        one.has_ssm = part == 1;
        one.has_tmgi = part == 0;
        int rc = bsf_mbs_projection_ids(&bsf_engine_store(e)->proj, txn, &one,
                                        bsf_engine_doc_found_visit, c);
        if (rc || c->rc)
            return rc ? rc : c->rc;
    }
    return 0;
}

/* The MbsBindingResp of the bound PCF: its pcfFqdn and pcfIpEndPoints. */
static int encode_resp(const bsf_pcf_mbs_binding_t *b, msgpack_sbuffer *out)
{
    bsf_pcf_mbs_binding_t resp = {.pcf_fqdn = b->pcf_fqdn,
                                  .pcf_ip_end_points = b->pcf_ip_end_points};
    return bsf_engine_doc_encode(BSF_ENGINE_DOC_MBS, &resp, out);
}

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    bsf_engine_doc_found_t c;
    int rc = collect(e, txn, &cmd->mbs_binding.mbs_session_id, &c);
    if (rc)
        return rc;
    if (c.n) {
        cmd->status = BSF_CMD_REFUSED;
        bsf_problem_set(&cmd->problem, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND,
                        "the MBS session is already bound to a PCF");
        return encode_resp(&c.bindings.mbs[0], &cmd->body);
    }
    bsf_engine_new_id(e, 0, &cmd->id);
    return bsf_engine_doc_emit_registered(e, txn, cmd, BSF_ENGINE_DOC_MBS);
}

/* The MBS rule for another site's registration: the earlier created stays (file comment). */
static int mbs_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                         const bsf_binding_id_t *id, uint64_t remote_created, const void *remote)
{
    const bsf_pcf_mbs_binding_t *r = remote;
    bsf_engine_doc_found_t c;
    int rc = collect(e, txn, &r->mbs_session_id, &c);
    if (rc)
        return rc;
    for (size_t i = 0; i < c.n; i++) {
        if (bsf_binding_id_site(&c.ids[i]) != bsf_engine_site(e) ||
            bsf_discovery_recency_cmp(c.created[i], &c.ids[i], remote_created, id) <= 0)
            continue; /* not ours, or ours is the earlier: the other site removes its own */
        if ((rc = bsf_engine_doc_replace_collided(e, txn, BSF_ENGINE_DOC_MBS, b, &c.ids[i],
                                                  BSF_REASON_REPLACED_BY_COLLISION, id)))
            return rc;
    }
    return 0;
}

const bsf_engine_doc_rules_t bsf_engine_mbs_rules = {BSF_ENGINE_DOC_MBS, run_register,
                                                    mbs_collision};
