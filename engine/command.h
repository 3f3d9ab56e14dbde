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
#include "core/problem.h"

typedef enum {
    BSF_CMD_REGISTER,
    BSF_CMD_UPDATE,
    BSF_CMD_DEREGISTER,
} bsf_command_kind_t;

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
    bsf_binding_id_t id;            /* update, deregister (and the result of register) */
    bsf_dereg_reason_t reason;      /* deregister */

    /* outcome */
    bsf_command_status_t status;
    bsf_problem_t problem;
    msgpack_sbuffer body;           /* canonical msgpack of the resulting binding */
    uint64_t log_position;          /* of the command's last event */
    uint64_t submitted_ns;          /* monotonic, set by bsf_engine_submit */

    bsf_command_done_fn done;
    void *owner;
};

bsf_command_t *bsf_command_new(bsf_command_kind_t kind);
void bsf_command_free(bsf_command_t *cmd);
/* Clears the outcome (used when the engine retries a command alone). */
void bsf_command_reset_outcome(bsf_command_t *cmd);

#endif
