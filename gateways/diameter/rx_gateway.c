/* The Rx Diameter gateway: the node (rx_node) and the proxy (rx_proxy) put together. */
#include "gateways/diameter/rx_gateway.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "gateways/diameter/rx_connections.h"
#include "gateways/diameter/rx_cpus.h"
#include "gateways/diameter/rx_dict.h"
#include "gateways/diameter/rx_feed.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_proxy.h"
#include "gateways/diameter/rx_repaving.h"
#include "common/error.h"

#define DRAIN_WAIT_MS 2000

struct bsf_rx_gateway {
    bsf_rx_dict_t dict;
    bsf_rx_proxy_t *proxy;
    bsf_rx_feed_t *feed; /* NULL when the message feed is off */
    bsf_rx_connections_t *connections;
    bsf_rx_repaving_t *repaving;
    bool node_started;
};

/* diameter.cpus: the calling thread moves to those CPUs, so that every thread it creates
 * (and every thread those create) runs there; *saved keeps its own CPUs to go back to. */
static int pin_threads(const char *cpus, cpu_set_t *saved, bool *pinned, char *err, size_t cap)
{
    cpu_set_t set;
    char why[256];
    *pinned = false;
    if (bsf_rx_cpus_parse(cpus, &set, why, sizeof why) <= 0)
        return 0; /* empty (the configuration checked the syntax) */
    int rc = pthread_getaffinity_np(pthread_self(), sizeof *saved, saved);
    if (rc == 0)
        rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc) {
        snprintf(err, cap, "diameter.cpus: cannot run on those CPUs: %s", bsf_strerror(rc));
        return -1;
    }
    *pinned = true;
    return 0;
}

int bsf_rx_gateway_start(const bsf_diameter_settings_t *settings, bsf_store_t *store,
                         bsf_engine_t *engine, bsf_feed_t *feed, bsf_admission_t *admission,
                         bsf_rx_gateway_t **out, char *err, size_t err_cap)
{
    *out = NULL;
    bsf_rx_gateway_t *gw = calloc(1, sizeof *gw);
    if (!gw) {
        snprintf(err, err_cap, "diameter: out of memory");
        return -1;
    }
    cpu_set_t saved;
    bool pinned = false;
    /* libfdcore's threads (from fd_core_initialize on: its configuration starts the routing
     * and peer threads) and the proxy's worker are created between the pin and the unpin;
     * libfdcore creates its later threads from those. */
    int rc = pin_threads(settings->cpus, &saved, &pinned, err, err_cap) ||
             bsf_rx_node_init(settings, &gw->dict, err, err_cap) ||
             bsf_rx_connections_start(&gw->connections, err, err_cap) ||
             bsf_rx_proxy_create(settings, &gw->dict, store, engine, gw->connections, admission,
                                 &gw->proxy, err, err_cap) ||
             bsf_rx_proxy_start(gw->proxy, err, err_cap) ||
             (feed && bsf_rx_feed_start(feed, &gw->dict, bsf_rx_proxy_request_binding, gw->proxy,
                                        &gw->feed, err, err_cap)) ||
             bsf_rx_repaving_start(settings, gw->connections, &gw->repaving, err, err_cap) ||
             bsf_rx_node_start(err, err_cap);
    if (pinned)
        pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    if (rc) {
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
    if (gw)
        bsf_rx_repaving_stop(gw->repaving);
    if (gw && gw->proxy)
        bsf_rx_proxy_drain(gw->proxy, DRAIN_WAIT_MS);
}

void bsf_rx_gateway_stop(bsf_rx_gateway_t *gw)
{
    if (!gw)
        return;
    if (gw->node_started)
        bsf_rx_node_stop(); /* DPR to every peer; no callback runs after this */
    bsf_rx_repaving_free(gw->repaving);
    bsf_rx_feed_free(gw->feed);
    bsf_rx_proxy_free(gw->proxy);
    bsf_rx_connections_free(gw->connections); /* the proxy and repaving read it */
    free(gw);
}

void bsf_rx_gateway_load(bsf_rx_gateway_t *gw, uint64_t *messages, unsigned *connections)
{
    *messages = gw->proxy ? bsf_rx_proxy_messages(gw->proxy) : 0;
    size_t n = 0;
    bsf_rx_connection_t *snap =
        gw->connections ? bsf_rx_connections_snapshot(gw->connections, &n) : NULL;
    *connections = 0;
    for (size_t i = 0; i < n; i++)
        *connections += bsf_rx_node_peer_open(snap[i].id) == 1;
    bsf_rx_connections_snapshot_free(snap, n);
}

void bsf_rx_gateway_write_metrics(void *gw, bsf_text_t *out)
{
    bsf_rx_gateway_t *g = gw;
    if (g && g->proxy)
        bsf_rx_proxy_write_metrics(g->proxy, out);
    if (g && g->connections)
        bsf_rx_connections_write_metrics(g->connections, out);
    if (g && g->repaving)
        bsf_rx_repaving_write_metrics(g->repaving, out);
}

bsf_rx_repaving_t *bsf_rx_gateway_repaving(bsf_rx_gateway_t *gw)
{
    return gw->repaving;
}

int bsf_rx_gateway_set_congestion_thresholds(bsf_rx_gateway_t *gw, const char *cpu,
                                             const char *queue, char *err, size_t cap)
{
    return bsf_rx_proxy_set_congestion_thresholds(gw->proxy, cpu, queue, err, cap);
}
