/* The command steps the document-style binding kinds (PCF for a UE, PCF for an MBS session;
 * engine/ue_commands.c, engine/mbs_commands.c) share: reading a live binding, update and
 * deregister of one, and emitting a deregistration. Engine thread only, inside its write transaction. */
#ifndef BSF_ENGINE_DOC_STEPS_H
#define BSF_ENGINE_DOC_STEPS_H

#include <stdbool.h>

#include "engine/engine_internal.h"

/* A projection's record lookup (bsf_ue_projection_get, bsf_mbs_projection_get). */
typedef int (*bsf_engine_record_get_fn)(const bsf_projection_t *p, MDB_txn *txn,
                                        const bsf_binding_id_t *id, bsf_record_t *out);

/* What the commands of one binding kind need. The `void *` bindings are of the kind's type
 * (bsf_pcf_ue_binding_t, bsf_pcf_mbs_binding_t). Static data. */
typedef struct {
    bsf_engine_record_get_fn get;
    const char *what;  /* the 404 detail before " with id <id>" */
    const char *label; /* the kind in log lines ("UE binding", "MBS binding") */
    bsf_command_kind_t register_kind, update_kind;
    /* the kind's registration: 0 (outcome in cmd) or a store error */
    int (*run_register)(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd);
    bsf_event_type_t updated;
    bsf_event_type_t deregistered;
    /* 0, or non-zero when the record does not parse */
    int (*decode)(const bsf_record_t *rec, msgpack_zone *zone, void *out);
    bool (*patch_is_empty)(const bsf_command_t *cmd);
    void (*patch_apply)(const void *current, const bsf_command_t *cmd, void *updated);
    void (*set_binding)(bsf_event_t *ev, const void *binding);
    /* the canonical msgpack of the binding into `out`: 0 or -ENOMEM */
    int (*encode)(const void *binding, msgpack_sbuffer *out);
} bsf_engine_doc_kind_t;

/* The live binding `id` of kind `k` decoded into `out` (of the kind's type; its members in
 * `zone`), its record in *rec (pointing into `txn`'s pages). Returns 0, MDB_NOTFOUND when
 * there is none or it is deregistered, MDB_CORRUPTED when the record does not parse, or the
 * projection's LMDB error. */
int bsf_engine_doc_get_live(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                            const bsf_binding_id_t *id, msgpack_zone *zone, bsf_record_t *rec,
                            void *out);

/* The live binding `id` of kind `k` that another site registered, read for the collision
 * rule with the engine's zone cleared first (its members in that zone): as
 * bsf_engine_doc_get_live, which it returns. */
int bsf_engine_doc_get_remote(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                              const bsf_binding_id_t *id, bsf_record_t *rec, void *out);

/* Empties `out` and sets `pk` to write into it, for a kind's encode step. Cannot fail; `out`
 * stays the caller's. */
void bsf_engine_packer_reset(msgpack_packer *pk, msgpack_sbuffer *out);

/* The update (merge patch) and deregister commands on the live binding cmd->id: 0 with the
 * outcome in cmd (the binding in cmd->body after an update; 404 RESOURCE_CONTEXT_NOT_FOUND,
 * detail "<what> with id <id>", when there is none or it is deregistered), or a store error
 * (MDB_CORRUPTED for a record that does not parse). */
int bsf_engine_doc_update(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                          const bsf_engine_doc_kind_t *k);
int bsf_engine_doc_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                              const bsf_engine_doc_kind_t *k);

/* Runs cmd, one of k's commands: its registration (k->run_register) for k->register_kind,
 * bsf_engine_doc_update for k->update_kind, bsf_engine_doc_deregister for any other. Returns
 * what the step returns: 0 (outcome in cmd) or a store error. */
int bsf_engine_doc_run(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd,
                       const bsf_engine_doc_kind_t *k);

/* Another site's registration `by` collided with this site's binding `victim` of kind k, and
 * `victim` goes for `reason`: deregistered (b->replaced counted) or, while this site is behind
 * its own log, left for later (b->replace_held counted, a WARN line). Returns 0 or what
 * bsf_engine_emit returns. */
int bsf_engine_doc_replace_collided(bsf_engine_t *e, MDB_txn *txn, const bsf_engine_doc_kind_t *k,
                                    bsf_apply_batch_t *b, const bsf_binding_id_t *victim,
                                    bsf_dereg_reason_t reason, const bsf_binding_id_t *by);

/* Emits the deregistration event `type` of `id` for `reason`, replaced by `by` (or NULL);
 * its log position into *pos (when not NULL). Returns what bsf_engine_emit returns. */
int bsf_engine_emit_deregistered(bsf_engine_t *e, MDB_txn *txn, bsf_event_type_t type,
                                 const bsf_binding_id_t *id, bsf_dereg_reason_t reason,
                                 const bsf_binding_id_t *by, uint64_t *pos);

#endif
