/* The Rx gateway's two uses of the binding store: finding the binding of an AAR-I's UE
 * address in the local projection (any thread; a pooled read handle of engine/read.h), and
 * removing a binding the PCF called stale (a deregistration command to the engine, seed
 * §3.34). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_BINDING_H
#define BSF_GATEWAYS_DIAMETER_RX_BINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "core/binding_id.h"
#include "core/discovery.h"
#include "engine/engine.h"
#include "gateways/diameter/rx_metrics.h"
#include "gateways/diameter/rx_routes.h"

/* What the gateway keeps of a binding (copied out of the read transaction). */
typedef struct {
    bsf_binding_id_t id;
    char pcf_host[BSF_RX_IDENTITY_MAX]; /* pcfDiamHost, "" when absent */
    char pcf_realm[BSF_RX_IDENTITY_MAX];
    char *cookie; /* ocnf-service-cookie (malloc'ed) or NULL */
    size_t cookie_len;
} bsf_rx_binding_t;

/* Finds the binding matching `q` (the most recent when several match). Any thread. Returns
 * BSF_RX_LOOKUP_FOUND (fills *out, which the caller owns: free with bsf_rx_binding_clear),
 * _NOT_FOUND, or _ERROR (the store failed, logged with bsf_strerror; or no memory for the
 * cookie). */
bsf_rx_lookup_result_t bsf_rx_binding_lookup(bsf_store_t *store, const bsf_discovery_query_t *q,
                                             bool want_cookie, bsf_rx_binding_t *out);
void bsf_rx_binding_clear(bsf_rx_binding_t *b);

/* Asks the engine to deregister `id` with reason diameter_failure. The outcome is counted
 * in `m` from the engine thread. Returns 0, or -1 when the engine refused the command. */
int bsf_rx_binding_remove_stale(bsf_engine_t *engine, const bsf_binding_id_t *id,
                                bsf_rx_metrics_t *m);

#endif
