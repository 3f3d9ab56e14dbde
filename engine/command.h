/* Write commands: what a gateway asks the engine to do, and the outcome it gets back.
 *
 * A gateway allocates a command with bsf_command_new, fills the input part, and hands it to
 * bsf_engine_submit. The engine owns it until it calls `done` (on the engine thread, after
 * the transaction is durable or failed); from then on the gateway owns it again and frees it
 * with bsf_command_free. */
#ifndef BSF_ENGINE_COMMAND_H
#define BSF_ENGINE_COMMAND_H

#include <msgpack.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/event.h"
#include "core/pcf_binding.h"
#include "core/pcf_binding_patch.h"
#include "core/pcf_mbs_binding.h"
#include "core/pcf_ue_binding_patch.h"
#include "core/problem.h"

typedef enum {
    BSF_CMD_REGISTER,
    BSF_CMD_UPDATE,
    BSF_CMD_DEREGISTER,
    BSF_CMD_UE_REGISTER,   /* PCF for a UE bindings (engine/ue_commands.c) */
    BSF_CMD_UE_UPDATE,
    BSF_CMD_UE_DEREGISTER,
    BSF_CMD_MBS_REGISTER,  /* PCF for an MBS session bindings (engine/mbs_commands.c) */
    BSF_CMD_MBS_UPDATE,
    BSF_CMD_MBS_DEREGISTER,
    BSF_CMD_AUDIT, /* an audit outcome that keeps the binding (engine/audit_commands.c) */
    BSF_CMD_SUB_CREATE,    /* subscriptions to binding events (engine/sub_commands.c) */
    BSF_CMD_SUB_REPLACE,
    BSF_CMD_SUB_DELETE,
    BSF_CMD_SUB_EXPIRE,    /* the engine's own: removes expired subscriptions of this site */
    BSF_CMD_APPLY, /* events of the replicated log (other sites', or this site's own when
                      bootstrapping): see bsf_apply_batch_t */
} bsf_command_kind_t;

/* One event read from the replicated log: its bytes as received and their decoding (storage
 * owned by whoever built the batch). */
typedef struct {
    const char *raw;
    size_t len;
    bsf_event_t ev;
    bool applied; /* outcome: appended and applied (false: already present) */
} bsf_apply_event_t;

/* A consumer position stored in the store's `meta` in the same transaction as the events:
 * the source (e.g. "kafka/bsf.events.1/0") continues at `to` once the batch is applied.
 * `from` is where the batch starts; a stored position below it means an earlier batch of the
 * source was not applied, and the whole batch is refused (`gap`). */
#define BSF_APPLY_SOURCE_MAX 288
typedef struct {
    char source[BSF_APPLY_SOURCE_MAX];
    uint64_t from, to;
} bsf_apply_position_t;

/* The input and outcome of a BSF_CMD_APPLY command. Events are applied unless already
 * present: an event is present when its site's highest sequence number in this store is at
 * or above its `seq` (each site's events reach the log in sequence order). */
typedef struct {
    bsf_apply_event_t *events;
    size_t n_events;
    bsf_apply_position_t *positions;
    size_t n_positions;
    /* outcome */
    bool gap;              /* refused: a source's stored position is below `from` */
    size_t applied;        /* events appended to the log and applied */
    size_t skipped;        /* events already present */
    size_t replaced;       /* own bindings deregistered after a cross-site collision */
    size_t replace_held;   /* ... that could not be, the site being behind its own events */
} bsf_apply_batch_t;

typedef enum {
    BSF_CMD_OK,           /* done; `id` and `body` hold the result */
    BSF_CMD_REFUSED,      /* a rule refused it (`problem`; for SamePcf `body` holds the
                             existing binding) */
    BSF_CMD_FAILED,       /* the store failed; nothing changed (`problem`) */
} bsf_command_status_t;

typedef struct bsf_command bsf_command_t;
typedef void (*bsf_command_done_fn)(bsf_command_t *cmd);

struct bsf_command {
    bsf_command_t *next; /* engine queue link */
    bsf_command_kind_t kind;

    /* input */
    msgpack_zone zone;              /* storage of `binding` and `patch` */
    bsf_pcf_binding_t binding;      /* register: decoded and rule-checked */
    int64_t origin_ts_ms;           /* register: collision timestamps, -1 when absent */
    int64_t sender_ts_ms;
    char *cookie;                   /* register: ocnf-service-cookie (in zone), or NULL */
    size_t cookie_len;
    bsf_pcf_binding_patch_t patch;  /* update */
    bsf_pcf_ue_binding_t ue_binding;      /* UE register: decoded and rule-checked */
    bsf_pcf_ue_binding_patch_t ue_patch;  /* UE update */
    bsf_pcf_mbs_binding_t mbs_binding;     /* MBS register: decoded and rule-checked */
    bsf_pcf_mbs_binding_patch_t mbs_patch; /* MBS update */
    bsf_subscription_t subscription;       /* subscription create / replace: decoded, checked,
                                              its expiry the one granted */
    bsf_binding_id_t id;            /* (UE) update, deregister (and the result of register) */
    bsf_dereg_reason_t reason;      /* deregister */
    bsf_apply_batch_t *apply;       /* apply: not owned by the command */
    bsf_event_type_t audit_outcome; /* audit: BSF_EVENT_AUDIT_CONFIRMED / _SUSPECTED / _FAILED */
    bsf_audit_state_t audit_state;  /* audit: the state after it (responder in zone) */
    /* audit, deregister: refused (MODIFICATION_NOT_ALLOWED, nothing written) when the binding
     * changed since the caller read it: its record's HLC, and its audit record's HLC (0: had
     * none). expect_hlc 0: no check. */
    uint64_t expect_hlc;
    uint64_t expect_audit_hlc;

    /* outcome */
    bsf_command_status_t status;
    bsf_problem_t problem;
    msgpack_sbuffer body;           /* canonical msgpack of the resulting binding (an MBS
                                       registration refused as existing: the MbsBindingResp
                                       of the bound PCF) */
    uint64_t log_position;          /* of the command's last event */
    uint64_t submitted_ns;          /* monotonic, set by bsf_engine_submit */

    bsf_command_done_fn done;
    void *owner;
};

/* A command owned by the caller until bsf_engine_submit takes it; NULL when out of memory.
 * Any thread. */
bsf_command_t *bsf_command_new(bsf_command_kind_t kind);
/* Frees the command, its zone and its buffers. NULL is ignored. Called by its owner (the
 * submitter, from `done` on once the engine answered). */
void bsf_command_free(bsf_command_t *cmd);
/* Clears the outcome (used when the engine retries a command alone). */
void bsf_command_reset_outcome(bsf_command_t *cmd);

#endif
