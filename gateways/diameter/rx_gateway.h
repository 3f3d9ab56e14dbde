/* The Rx Diameter gateway (TS 29.214 over freeDiameter): AF requests routed to the PCF that
 * holds the UE's binding, answers relayed back, sessions followed. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_GATEWAY_H
#define BSF_GATEWAYS_DIAMETER_RX_GATEWAY_H

#include "common/text.h"
#include "engine/engine.h"
#include "gateways/diameter/rx_repaving.h"
#include "gateways/diameter/rx_settings.h"
#include "feed/feed.h"
#include "gateways/admission/admission.h"

typedef struct bsf_rx_gateway bsf_rx_gateway_t;

/* Starts the Diameter node. `feed` (NULL when the message feed is off) gets a copy of every
 * Rx message the node receives and sends; it must outlive the gateway. `admission` (the
 * shared congestion state; NULL: no congestion control) must outlive the gateway too.
 * Returns 0 or -1 with a message. */
int bsf_rx_gateway_start(const bsf_diameter_settings_t *settings, bsf_store_t *store,
                         bsf_engine_t *engine, bsf_feed_t *feed, bsf_admission_t *admission,
                         bsf_rx_gateway_t **out, char *err, size_t err_cap);
/* Stops taking new sessions and disconnects peers (DPR). */
void bsf_rx_gateway_drain(bsf_rx_gateway_t *gw);
void bsf_rx_gateway_stop(bsf_rx_gateway_t *gw);
/* Prometheus text of the gateway's counters. */
void bsf_rx_gateway_write_metrics(void *gw, bsf_text_t *out);
/* Diameter messages handled since start (requests in, requests relayed) and the Diameter
 * connections up now: inputs of the NF score. Any thread. */
void bsf_rx_gateway_load(bsf_rx_gateway_t *gw, uint64_t *messages, unsigned *connections);
/* Connection repaving (seed §3.45), for its management resources (rx_repaving_api.h). */
bsf_rx_repaving_t *bsf_rx_gateway_repaving(bsf_rx_gateway_t *gw);
/* diameter.congestion.cpu_thresholds / queue_thresholds changed at run time (see
 * bsf_rx_cong_monitor_set_thresholds). Any thread. Returns 0 or -1 with err. */
int bsf_rx_gateway_set_congestion_thresholds(bsf_rx_gateway_t *gw, const char *cpu,
                                             const char *queue, char *err, size_t cap);

#endif
