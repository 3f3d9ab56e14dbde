/* Connection repaving of the Diameter front end at run time (seed §3.45): takes operators'
 * triggers and, on its own thread, sends DPR (with the configured Disconnect-Cause) to every
 * inbound connection established before the trigger, one at a time with a pause between two,
 * after a random stagger. New connections are accepted throughout. The rules are
 * rx_repaving_rules.h's; which connections exist comes from rx_connections.h. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_REPAVING_H
#define BSF_GATEWAYS_DIAMETER_RX_REPAVING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/diameter/rx_connections.h"
#include "gateways/diameter/rx_repaving_rules.h"
#include "gateways/diameter/rx_settings.h"

typedef struct bsf_rx_repaving bsf_rx_repaving_t;

/* Starts the repaving thread; `connections` (which must outlive it) says which connections
 * exist and when they were established. Returns 0 or -1 with a message. */
int bsf_rx_repaving_start(const bsf_diameter_settings_t *s, bsf_rx_connections_t *connections,
                          bsf_rx_repaving_t **out, char *err, size_t cap);
/* Stops the thread (a run in progress ends after its current disconnection). Triggers are
 * still recorded afterwards, never run. */
void bsf_rx_repaving_stop(bsf_rx_repaving_t *r);
void bsf_rx_repaving_free(bsf_rx_repaving_t *r);

/* Offers a trigger: `id` NULL or "" makes a new UUID. *t gets the trigger as recorded. */
bsf_rx_repave_offer_t bsf_rx_repaving_trigger(bsf_rx_repaving_t *r, const char *id,
                                              bsf_rx_repave_trigger_t *t);

void bsf_rx_repaving_set_enabled(bsf_rx_repaving_t *r, bool enabled);

typedef struct {
    bool enabled, busy;
    uint64_t jitter_ms, interval_ms, delay_min; /* the settings */
    const char *cause;
    bsf_rx_repave_trigger_t current; /* valid while busy */
    size_t queued;
    char last_id[BSF_RX_REPAVE_ID_MAX];
    uint64_t last_completed_ms;
    uint64_t disconnections; /* since start */
} bsf_rx_repaving_status_t;

void bsf_rx_repaving_status(bsf_rx_repaving_t *r, bsf_rx_repaving_status_t *st);

/* diam_repaving_disconnections_total, diam_repaving_triggers_total{outcome},
 * diam_repaving_busy, diam_repaving_queued. */
void bsf_rx_repaving_write_metrics(bsf_rx_repaving_t *r, bsf_text_t *out);

#endif
