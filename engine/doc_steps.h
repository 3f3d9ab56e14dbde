/* The command steps the document-style binding kinds (PCF for a UE, PCF for an MBS session;
 * engine/ue_commands.c, engine/mbs_commands.c) share: reading a live binding, update and
 * deregister of one, their encoding, and emitting a deregistration. Engine thread only,
 * inside its write transaction. */
#ifndef BSF_ENGINE_DOC_STEPS_H
#define BSF_ENGINE_DOC_STEPS_H

#include <stdbool.h>

#include "engine/engine_internal.h"

/* The document-style binding kinds. What differs between them (their projection, codec,
 * merge patch, events and texts) is looked up from the kind inside engine/doc_steps.c; a
 * `void *` binding is of the kind's type (bsf_pcf_ue_binding_t, bsf_pcf_mbs_binding_t). */
typedef enum {
    BSF_ENGINE_DOC_UE,  /* PCF for a UE (BSF_CMD_UE_*) */
    BSF_ENGINE_DOC_MBS, /* PCF for an MBS session (BSF_CMD_MBS_*) */
} bsf_engine_doc_kind_t;

/* The live binding `id` of kind `k` decoded into `out` (of the kind's type; its members in
 * `zone`), its record in *rec (pointing into `txn`'s pages). Returns 0, MDB_NOTFOUND when
 * there is none or it is deregistered, MDB_CORRUPTED when the record does not parse, or the
 * projection's LMDB error. */
int bsf_engine_doc_get_live(bsf_engine_t *e, MDB_txn *txn, bsf_engine_doc_kind_t k,
                            const bsf_binding_id_t *id, msgpack_zone *zone, bsf_record_t *rec,
                            void *out);

#define BSF_ENGINE_DOC_MAX_FOUND 16

/* The live bindings of kind k that an index walk names, each id once, at most
 * BSF_ENGINE_DOC_MAX_FOUND: ids[i], its binding (bindings.ue[i] or bindings.mbs[i], members
 * in the engine's zone) and created[i], its created HLC. The caller's (stack) storage. */
typedef struct {
    bsf_engine_t *e;
    MDB_txn *txn;
    bsf_engine_doc_kind_t k;
    bsf_binding_id_t ids[BSF_ENGINE_DOC_MAX_FOUND];
    union {
        bsf_pcf_ue_binding_t ue[BSF_ENGINE_DOC_MAX_FOUND];
        bsf_pcf_mbs_binding_t mbs[BSF_ENGINE_DOC_MAX_FOUND];
    } bindings;
    uint64_t created[BSF_ENGINE_DOC_MAX_FOUND];
    size_t n;
    int rc; /* the store error that stopped the walk, or 0 */
} bsf_engine_doc_found_t;

/* Empties `f` for a walk over kind k's bindings in `txn`. Cannot fail. */
void bsf_engine_doc_found_init(bsf_engine_doc_found_t *f, bsf_engine_t *e, MDB_txn *txn,
                               bsf_engine_doc_kind_t k);

/* The visitor of a projection's ids walk (ctx: a bsf_engine_doc_found_t): adds id's live
 * binding. Returns true (stop) when `f` is full or on a store error (kept in f->rc); a walk
 * that begins with `f` already full adds nothing, so several walks may share one `f`. */
bool bsf_engine_doc_found_visit(void *ctx, const bsf_binding_id_t *id);

/* A kind's cross-site rule for `remote`, the live binding `id` (created at `created_hlc`)
 * that another site registered: 0, or a store error. */
typedef int (*bsf_engine_doc_collision_fn)(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                           const bsf_binding_id_t *id, uint64_t created_hlc,
                                           const void *remote);

/* The rules of one kind, which the steps here run: its registration (0 with the outcome in
 * cmd, or a store error; each kind has its own rule for the bindings already there) and its
 * cross-site rule. Static data. */
typedef struct {
    bsf_engine_doc_kind_t kind;
    int (*run_register)(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd);
    bsf_engine_doc_collision_fn collision;
} bsf_engine_doc_rules_t;

/* PCF for a UE (engine/ue_commands.c: a registration replaces the UE's earlier bindings,
 * core/ue_decide.h) and PCF for an MBS session (engine/mbs_commands.c: one PCF per session;
 * across sites the earlier created stays). */
extern const bsf_engine_doc_rules_t bsf_engine_ue_rules, bsf_engine_mbs_rules;

/* Runs cmd, one of r's kind's commands (BSF_CMD_UE_* or BSF_CMD_MBS_*): r->run_register for
 * a registration, bsf_engine_doc_update for the update, bsf_engine_doc_deregister for any
 * other. Returns what the step returns: 0 (outcome in cmd) or a store error (the transaction
 * is aborted). */
int bsf_engine_doc_run(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                       const bsf_engine_doc_rules_t *r);

/* Another site's registration `id` of r's kind was just applied: reads it (the engine's zone
 * cleared first; the binding's members in that zone) and runs r->collision on it, which
 * deregisters this site's bindings it replaces (b->replaced counted; b->replace_held when
 * this site is behind its own log). Returns 0 (also when it is no longer live), what the rule
 * returns, MDB_CORRUPTED for a record that does not parse, or the projection's LMDB error. */
int bsf_engine_doc_resolve_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                     const bsf_binding_id_t *id, const bsf_engine_doc_rules_t *r);

/* Empties `out` and sets `pk` to write into it, for a kind's encode step. Cannot fail; `out`
 * stays the caller's. */
void bsf_engine_packer_reset(msgpack_packer *pk, msgpack_sbuffer *out);

/* The update (merge patch) and deregister commands on the live binding cmd->id: 0 with the
 * outcome in cmd (the binding in cmd->body after an update; 404 RESOURCE_CONTEXT_NOT_FOUND,
 * detail "<what> with id <id>", when there is none or it is deregistered), or a store error
 * (MDB_CORRUPTED for a record that does not parse). */
int bsf_engine_doc_update(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                          bsf_engine_doc_kind_t k);
int bsf_engine_doc_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              bsf_engine_doc_kind_t k);

/* The end of a registration the kind's rule let through: emits the registration event of
 * cmd's binding (of kind k) under cmd->id, its log position into cmd->log_position, and
 * encodes the binding into cmd->body. Returns 0, what bsf_engine_emit returns, or -ENOMEM. */
int bsf_engine_doc_emit_registered(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                                   bsf_engine_doc_kind_t k);

/* The canonical msgpack of `binding` (of kind k) into `out` (emptied first): 0 or -ENOMEM. */
int bsf_engine_doc_encode(bsf_engine_doc_kind_t k, const void *binding, msgpack_sbuffer *out);

/* Another site's registration `by` collided with this site's binding `victim` of kind k, and
 * `victim` goes for `reason`: deregistered (b->replaced counted) or, while this site is behind
 * its own log, left for later (b->replace_held counted, a WARN line). Returns 0 or what
 * bsf_engine_emit returns. */
int bsf_engine_doc_replace_collided(bsf_engine_t *e, MDB_txn *txn, bsf_engine_doc_kind_t k,
                                    bsf_apply_batch_t *b, const bsf_binding_id_t *victim,
                                    bsf_dereg_reason_t reason, const bsf_binding_id_t *by);

/* Emits the deregistration event `type` of `id` for `reason`, replaced by `by` (or NULL);
 * its log position into *pos (when not NULL). Returns what bsf_engine_emit returns. */
int bsf_engine_emit_deregistered(bsf_engine_t *e, MDB_txn *txn, bsf_event_type_t type,
                                 const bsf_binding_id_t *id, bsf_dereg_reason_t reason,
                                 const bsf_binding_id_t *by, uint64_t *pos);

#endif
