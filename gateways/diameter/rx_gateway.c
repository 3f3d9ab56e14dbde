/* The Rx Diameter gateway: the node (rx_node) and the proxy (rx_proxy) put together. */
#include "gateways/diameter/rx_gateway.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/diag.h"
#include "gateways/diameter/rx_dict.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_proxy.h"

#define DRAIN_WAIT_MS 2000

struct bsf_rx_gateway {
    bsf_rx_dict_t dict;
    bsf_rx_proxy_t *proxy;
    bool node_started;
};

int bsf_rx_gateway_start(const bsf_diameter_settings_t *settings, bsf_store_t *store,
                         bsf_engine_t *engine, bsf_rx_gateway_t **out, char *err, size_t err_cap)
{
    *out = NULL;
    bsf_rx_gateway_t *gw = calloc(1, sizeof *gw);
    if (!gw) {
        snprintf(err, err_cap, "diameter: out of memory");
        return -1;
    }
    if (bsf_rx_node_init(settings, &gw->dict, err, err_cap) ||
        bsf_rx_proxy_create(settings, &gw->dict, store, engine, &gw->proxy, err, err_cap) ||
        bsf_rx_proxy_start(gw->proxy, err, err_cap) || bsf_rx_node_start(err, err_cap)) {
        /* libfdcore cannot be restarted in this process: bsfd exits. */
        free(gw);
        return -1;
    }
    gw->node_started = true;
    BSF_INFO("diameter", "Rx gateway %s (realm %s) on port %u", settings->identity,
             settings->realm, (unsigned)settings->port);
    *out = gw;
    return 0;
}

void bsf_rx_gateway_drain(bsf_rx_gateway_t *gw)
{
    if (gw && gw->proxy)
        bsf_rx_proxy_drain(gw->proxy, DRAIN_WAIT_MS);
}

void bsf_rx_gateway_stop(bsf_rx_gateway_t *gw)
{
    if (!gw)
        return;
    if (gw->node_started)
        bsf_rx_node_stop(); /* DPR to every peer; no callback runs after this */
    bsf_rx_proxy_free(gw->proxy);
    free(gw);
}

void bsf_rx_gateway_write_metrics(void *gw, bsf_text_t *out)
{
    bsf_rx_gateway_t *g = gw;
    if (g && g->proxy)
        bsf_rx_proxy_write_metrics(g->proxy, out);
}
