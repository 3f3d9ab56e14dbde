/* The Rx proxy: every Rx request the node receives is routed here, forwarded as an RFC 6733
 * proxy agent (the request object itself goes on, so its End-to-End id, Route-Record and the
 * hop-by-hop swap stay freeDiameter's), and every answer to it comes back here before it is
 * relayed to the requester.
 *
 *   AAR-I        binding lookup by UE address, realm rules, cookie, Destination-Host
 *   AAR-U, STR   follow the session to the PCF hop of its AAR-I
 *   RAR, ASR     follow the session back to the AF
 *   otherwise    Destination-Host when it is a neighbour, then the static routing table
 *
 * Each forwarded request is in the pending table until exactly one of these completes it:
 * its answer, freeDiameter's answer timer, a routing error or drop reported by a hook, or
 * the gateway's own deadline (timer + 1 s; pitfall 4). Retries (seed §3.15) re-send the same
 * request to the next candidate peer. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_PROXY_H
#define BSF_GATEWAYS_DIAMETER_RX_PROXY_H

#include <stdbool.h>

#include "common/text.h"
#include "core/binding_id.h"
#include "engine/engine.h"
#include "gateways/admission/admission.h"
#include "gateways/diameter/rx_connections.h"
#include "gateways/diameter/rx_dict.h"
#include "gateways/diameter/rx_settings.h"

typedef struct bsf_rx_proxy bsf_rx_proxy_t;

/* Creates the proxy's tables from the settings; `connections` (which must outlive the proxy)
 * says which neighbours' connections are trusted; `admission` (may be NULL, outlives the
 * proxy) holds the shared congestion state. Returns 0 or -1 with a message. */
int bsf_rx_proxy_create(const bsf_diameter_settings_t *s, const bsf_rx_dict_t *rx,
                        bsf_store_t *store, bsf_engine_t *engine,
                        bsf_rx_connections_t *connections, bsf_admission_t *admission,
                        bsf_rx_proxy_t **out, char *err, size_t cap);
/* Registers the dispatch, routing and hook callbacks with libfdcore (before it starts) and
 * starts the proxy's worker thread (reroutes, deadlines, session expiry). Returns 0 or -1. */
int bsf_rx_proxy_start(bsf_rx_proxy_t *px, char *err, size_t cap);
/* New requests get 3004 DIAMETER_TOO_BUSY; waits up to `wait_ms` for the pending ones. */
void bsf_rx_proxy_drain(bsf_rx_proxy_t *px, unsigned wait_ms);
/* Stops the worker; call after libfdcore has stopped. */
void bsf_rx_proxy_stop(bsf_rx_proxy_t *px);
void bsf_rx_proxy_free(bsf_rx_proxy_t *px);

/* The congestion thresholds at run time (bsf_rx_cong_monitor_set_thresholds). Any thread. */
int bsf_rx_proxy_set_congestion_thresholds(bsf_rx_proxy_t *px, const char *cpu,
                                           const char *queue, char *err, size_t cap);
void bsf_rx_proxy_write_metrics(bsf_rx_proxy_t *px, bsf_text_t *out);
/* bsf_rx_metrics_messages of the proxy. Any thread. */
uint64_t bsf_rx_proxy_messages(const bsf_rx_proxy_t *px);

/* For the message feed (bsf_rx_feed_binding_fn): the binding that routed `request`, a
 * request the proxy is forwarding. Any thread. */
bool bsf_rx_proxy_request_binding(void *px, struct msg *request, bsf_binding_id_t *out);

#endif
