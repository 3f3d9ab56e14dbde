/* Connection repaving of the Diameter front end (seed §3.45): the rules, without I/O.
 *
 * An operator triggers a repaving to rebalance the AFs' connections (behind an L4 load
 * balancer) over the gateway instances: every inbound connection established before the
 * trigger's request time gets a DPR, one after the other, and the peer reconnects through the
 * balancer. Triggers are processed one at a time, in arrival order, never dropped while
 * queued; one that repeats the id of a queued, running or the last processed trigger is a
 * redelivery and ignored. With a reinvocation delay, a trigger whose request time comes
 * sooner than that after the previous run's completion is skipped (so one queued behind a
 * run is skipped too: repaving again at once would undo the balance the run just made). rx_repaving.c runs them. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_REPAVING_RULES_H
#define BSF_GATEWAYS_DIAMETER_RX_REPAVING_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_RX_REPAVE_ID_MAX 64  /* characters of an invocation id, NUL included */
#define BSF_RX_REPAVE_QUEUE_MAX 16

/* Disconnect-Cause (RFC 6733 §5.4.3). */
typedef enum {
    BSF_RX_DC_REBOOTING = 0,
    BSF_RX_DC_BUSY = 1,
    BSF_RX_DC_DO_NOT_WANT_TO_TALK_TO_YOU = 2,
} bsf_rx_disconnect_cause_t;

/* The dictionary name of a cause ("REBOOTING", ...). */
const char *bsf_rx_disconnect_cause_name(bsf_rx_disconnect_cause_t c);

typedef struct {
    char id[BSF_RX_REPAVE_ID_MAX];
    uint64_t request_ms; /* wall clock: connections established before it are repaved */
} bsf_rx_repave_trigger_t;

typedef enum {
    BSF_RX_REPAVE_QUEUED = 0,
    BSF_RX_REPAVE_DUPLICATE, /* same id as a queued, running or the last processed trigger */
    BSF_RX_REPAVE_DISABLED,  /* recorded, ignored: the feature is off */
    BSF_RX_REPAVE_QUEUE_FULL,
} bsf_rx_repave_offer_t;

typedef enum {
    BSF_RX_REPAVE_NONE = 0, /* nothing queued */
    BSF_RX_REPAVE_RUN,      /* *out is to run now */
    BSF_RX_REPAVE_SKIPPED,  /* *out came within the reinvocation delay: not run */
} bsf_rx_repave_next_t;

typedef struct {
    bsf_rx_repave_trigger_t queue[BSF_RX_REPAVE_QUEUE_MAX];
    size_t head, count;
    bool busy;                              /* a trigger runs */
    bsf_rx_repave_trigger_t current;        /* valid while busy */
    char last_id[BSF_RX_REPAVE_ID_MAX];     /* last trigger taken off the queue ("" = none) */
    uint64_t last_completed_ms;             /* end of the last run (0 = never ran) */
} bsf_rx_repave_queue_t;

/* Outcome names for answers, logs and metrics: "queued", "duplicate", ... */
const char *bsf_rx_repave_offer_name(bsf_rx_repave_offer_t o);

/* Offers a trigger. With `enabled` false it is only recognised as a duplicate or disabled. */
bsf_rx_repave_offer_t bsf_rx_repave_queue_offer(bsf_rx_repave_queue_t *q,
                                                const bsf_rx_repave_trigger_t *t, bool enabled);

/* Takes the oldest trigger off the queue into *out. RUN marks the queue busy until
 * bsf_rx_repave_queue_done; SKIPPED does not (the next one may be taken at once). */
bsf_rx_repave_next_t bsf_rx_repave_queue_next(bsf_rx_repave_queue_t *q,
                                              uint64_t reinvocation_delay_ms,
                                              bsf_rx_repave_trigger_t *out);

/* The running trigger finished at `now_ms`. */
void bsf_rx_repave_queue_done(bsf_rx_repave_queue_t *q, uint64_t now_ms);

/* Whether a connection is repaved by a trigger: inbound (the peer connected to us; peers we
 * connect to are never repaved: after a DPR nobody would reconnect them) and established
 * before the trigger's request time. */
bool bsf_rx_repave_eligible(bool inbound, uint64_t established_ms, uint64_t request_ms);

/* Checks an operator-given invocation id: 1-63 characters of [A-Za-z0-9._:-]. Returns 0 or
 * -1 with the reason. */
int bsf_rx_repave_check_id(const char *id, char *why, size_t cap);

#endif
