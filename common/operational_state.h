/* The BSF's operational state (seed §3.39 controlled shutdown, §3.40 termination): one
 * process-wide value every gateway reads on each request, set by the management API
 * (gateways/ops/ops_opstate) and by bsfd when it stops. Pure rules plus atomics: no I/O.
 *
 *   state               new sessions   in-session, discovery   audits
 *   NORMAL              served         served                  run
 *   PARTIAL_SHUTDOWN    refused        served                  run
 *   COMPLETE_SHUTDOWN   refused        refused                 paused
 *   terminating (SIGTERM, any state): every new request refused as "stopping".
 *
 * Every function may be called from any thread. */
#ifndef BSF_COMMON_OPERATIONAL_STATE_H
#define BSF_COMMON_OPERATIONAL_STATE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    BSF_OPSTATE_NORMAL = 0,
    BSF_OPSTATE_PARTIAL_SHUTDOWN = 1,
    BSF_OPSTATE_COMPLETE_SHUTDOWN = 2,
} bsf_opstate_t;

/* What a request does, as the state's rules tell them apart. */
typedef enum {
    BSF_OPREQ_NEW_SESSION, /* a registration of any binding kind; Rx AAR-I */
    BSF_OPREQ_IN_SESSION,  /* update, deregistration; AAR-U, STR, RAR, ASR */
    BSF_OPREQ_DISCOVERY,   /* a GET of bindings */
} bsf_opreq_t;

typedef enum {
    BSF_OPVERDICT_ADMIT = 0,
    BSF_OPVERDICT_SHUTDOWN, /* refused by PARTIAL_SHUTDOWN / COMPLETE_SHUTDOWN */
    BSF_OPVERDICT_STOPPING, /* refused: the process is terminating */
} bsf_opverdict_t;

/* The current state (NORMAL until set). */
bsf_opstate_t bsf_opstate_get(void);
/* Sets the state and calls every listener (on the caller's thread) when it changed. Returns
 * the previous state. */
bsf_opstate_t bsf_opstate_set(bsf_opstate_t st);

/* SIGTERM: from now on every new request is refused as stopping. Never undone. */
void bsf_opstate_begin_termination(void);
bool bsf_opstate_terminating(void);

/* The rule of the table above for one request. */
bsf_opverdict_t bsf_opstate_check(bsf_opreq_t req);
/* True in COMPLETE_SHUTDOWN (and while terminating): the audit module must not start an audit
 * or delete a stale binding (seed §3.39 "Disabling Audit on Controlled Shutdown"). */
bool bsf_opstate_audits_paused(void);

/* Refusals counted for the metrics, by interface (0 SBI, 1 Diameter). */
typedef enum { BSF_OPIF_SBI = 0, BSF_OPIF_DIAMETER = 1 } bsf_opif_t;
void bsf_opstate_count_refusal(bsf_opif_t iface);
uint64_t bsf_opstate_refusals(bsf_opif_t iface);

/* "NORMAL", "PARTIAL_SHUTDOWN", "COMPLETE_SHUTDOWN". */
const char *bsf_opstate_name(bsf_opstate_t st);
/* The state named `text` (exactly one of the names above). Returns 0 or -1. */
int bsf_opstate_parse(const char *text, bsf_opstate_t *out);
/* The nfStatus (TS 29.510) the NRF must see: REGISTERED in NORMAL, SUSPENDED otherwise. */
const char *bsf_opstate_nf_status(void);

/* The refusals' codes (controlled_shutdown.*): HTTP status and 3GPP cause of an SBI refusal,
 * the Diameter Result-Code of an Rx one. Set once at start-up and on a configuration change;
 * `cause` is copied (at most 63 characters). */
void bsf_opstate_set_codes(unsigned http_status, const char *cause, uint32_t diameter_result);
unsigned bsf_opstate_http_status(void);
/* Copies the cause into out (cap >= 64). */
void bsf_opstate_cause(char *out, unsigned cap);
uint32_t bsf_opstate_diameter_result(void);

/* Called after every change of the state, on the thread that made it. At most 8 listeners;
 * add them at start-up. Returns 0 or -1 when the table is full. */
typedef void (*bsf_opstate_listener_fn)(void *ctx, bsf_opstate_t from, bsf_opstate_t to);
int bsf_opstate_add_listener(bsf_opstate_listener_fn fn, void *ctx);
/* Removes the listener added with fn and ctx (before what ctx points at is freed). */
void bsf_opstate_remove_listener(bsf_opstate_listener_fn fn, void *ctx);

#endif
