/* The neighbours' connections; see rx_connections.h. */
#include "gateways/diameter/rx_connections.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/metrics_text.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_tls.h"
#include "common/error.h"

/* Why a connection failed, as diam_failed_conn_network_total's `reason`. */
enum { FAIL_CONNECT, FAIL_CERTIFICATE, FAIL_REASONS };
static const char *const fail_reasons[FAIL_REASONS] = {"connect", "certificate"};

/* A bound on the neighbours whose failures are counted one by one; later ones share the
 * "other" row (the identity of a refused peer is whatever it claimed: it must not grow the
 * table, nor the metrics, without bound). */
#define MAX_FAILING_PEERS 256

typedef struct {
    char *id;
    uint64_t n[FAIL_REASONS];
} failures_t;

struct bsf_rx_connections {
    pthread_mutex_t lock;
    bsf_rx_connection_t *items;
    size_t n, cap;
    failures_t *failures;
    size_t n_failures, cap_failures;
    atomic_size_t untrusted; /* entries with trusted false */
    struct fd_hook_hdl *hook, *failed_hook;
};

static failures_t *find_failures_locked(bsf_rx_connections_t *c, const char *id)
{
    for (size_t i = 0; i < c->n_failures; i++)
        if (strcasecmp(c->failures[i].id, id) == 0)
            return &c->failures[i];
    return NULL;
}

static void count_failure(bsf_rx_connections_t *c, const char *id, int reason)
{
    pthread_mutex_lock(&c->lock);
    failures_t *f = find_failures_locked(c, id);
    if (!f && c->n_failures >= MAX_FAILING_PEERS)
        f = find_failures_locked(c, id = "other");
    if (!f && c->n_failures == c->cap_failures && c->n_failures <= MAX_FAILING_PEERS) {
        size_t cap = c->cap_failures ? 2 * c->cap_failures : 8;
        failures_t *grown = realloc(c->failures, cap * sizeof *grown);
        if (grown) {
            c->failures = grown;
            c->cap_failures = cap;
        }
    }
    if (!f && c->n_failures < c->cap_failures) {
        char *copy = strdup(id);
        if (copy) {
            f = &c->failures[c->n_failures++];
            *f = (failures_t){.id = copy};
        }
    }
    if (f)
        f->n[reason]++;
    pthread_mutex_unlock(&c->lock);
}

/* HOOK_PEER_CONNECT_FAILED: a connection to a configured peer, or a capabilities exchange
 * (CER/CEA, TLS handshake) failed. */
static void on_failed(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                      void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
    (void)type;
    (void)msg;
    (void)other;
    (void)pmd;
    count_failure(regdata, peer && peer->info.pi_diamid ? peer->info.pi_diamid : "unknown",
                  FAIL_CONNECT);
}

static bsf_rx_connection_t *find_locked(bsf_rx_connections_t *c, const char *id)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcasecmp(c->items[i].id, id) == 0)
            return &c->items[i];
    return NULL;
}

/* HOOK_PEER_CONNECT_SUCCESS: on the peer's state machine, CER/CEA done. */
static void on_connected(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
                         void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
    (void)type;
    (void)msg;
    (void)other;
    (void)pmd;
    bsf_rx_connections_t *c = regdata;
    if (!peer || !peer->info.pi_diamid)
        return;
    char proto[64] = "";
    fd_peer_cnx_proto_info(peer, proto, sizeof proto); /* "TCP,TLS,soc#6" */
    /* the certificates a peer that connected to us presented; NULL without TLS, and also on
     * the connections we opened (hence `tls` from the connection's protocols) */
    const gnutls_datum_t *certs = peer->info.runtime.pir_cert_list;
    bsf_rx_connection_t now = {
        .established_ms = bsf_clock_wall_ms(),
        /* libfdcore makes a peer that connected to us, unknown to its configuration, expire
         * on inactivity; peers of diameter.peers do not. */
        .inbound = peer->info.config.pic_flags.exp == PI_EXP_INACTIVE,
        .tls = strstr(proto, "TLS") != NULL,
        .trusted = !certs || (peer->info.runtime.pir_cert_list_size &&
                              bsf_rx_tls_cert_names(certs[0].data, certs[0].size,
                                                    peer->info.pi_diamid)),
    };
    if (!now.trusted) {
        BSF_ERROR("diameter", "peer %s: its TLS certificate does not name it: disconnecting",
                  peer->info.pi_diamid);
        bsf_rx_node_disconnect(peer, "DO_NOT_WANT_TO_TALK_TO_YOU");
        count_failure(c, peer->info.pi_diamid, FAIL_CERTIFICATE);
    }
    pthread_mutex_lock(&c->lock);
    bsf_rx_connection_t *e = find_locked(c, peer->info.pi_diamid);
    if (!e && c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        bsf_rx_connection_t *grown = realloc(c->items, cap * sizeof *grown);
        if (grown) {
            c->items = grown;
            c->cap = cap;
        }
    }
    bool fresh = false;
    if (!e && c->n < c->cap && (now.id = strdup(peer->info.pi_diamid)) != NULL) {
        e = &c->items[c->n++];
        fresh = true;
    } else if (e) {
        now.id = e->id;
    }
    if (e) {
        bool was_untrusted = !fresh && !e->trusted;
        if (was_untrusted && now.trusted)
            atomic_fetch_sub(&c->untrusted, 1);
        else if (!was_untrusted && !now.trusted)
            atomic_fetch_add(&c->untrusted, 1);
        *e = now;
    }
    pthread_mutex_unlock(&c->lock);
    if (!e)
        BSF_WARN("diameter", "out of memory: connection of %s not recorded",
                 peer->info.pi_diamid);
}

int bsf_rx_connections_start(bsf_rx_connections_t **out, char *err, size_t cap)
{
    *out = NULL;
    bsf_rx_connections_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, cap, "diameter: out of memory");
        return -1;
    }
    pthread_mutex_init(&c->lock, NULL);
    int rc = fd_hook_register(HOOK_MASK(HOOK_PEER_CONNECT_SUCCESS), on_connected, c, NULL,
                              &c->hook);
    if (!rc)
        rc = fd_hook_register(HOOK_MASK(HOOK_PEER_CONNECT_FAILED), on_failed, c, NULL,
                              &c->failed_hook);
    if (rc) {
        snprintf(err, cap, "diameter: cannot register the connection hook: %s", bsf_strerror(rc));
        bsf_rx_connections_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

void bsf_rx_connections_free(bsf_rx_connections_t *c)
{
    if (!c)
        return;
    if (c->hook)
        fd_hook_unregister(c->hook);
    if (c->failed_hook)
        fd_hook_unregister(c->failed_hook);
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i].id);
    free(c->items);
    for (size_t i = 0; i < c->n_failures; i++)
        free(c->failures[i].id);
    free(c->failures);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

bool bsf_rx_connections_get(bsf_rx_connections_t *c, const char *id, bsf_rx_connection_t *out)
{
    pthread_mutex_lock(&c->lock);
    bsf_rx_connection_t *e = find_locked(c, id);
    if (e) {
        *out = *e;
        out->id = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    return e != NULL;
}

bool bsf_rx_connections_claim(bsf_rx_connections_t *c, const char *id, uint64_t established_ms)
{
    pthread_mutex_lock(&c->lock);
    bsf_rx_connection_t *e = find_locked(c, id);
    bool claimed = e && e->established_ms == established_ms && !e->ending;
    if (claimed)
        e->ending = true;
    pthread_mutex_unlock(&c->lock);
    return claimed;
}

bool bsf_rx_connections_trusted(bsf_rx_connections_t *c, const char *id, size_t len)
{
    if (atomic_load(&c->untrusted) == 0 || !id)
        return true;
    bool trusted = true;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->items[i].id) == len && strncasecmp(c->items[i].id, id, len) == 0)
            trusted = c->items[i].trusted;
    pthread_mutex_unlock(&c->lock);
    return trusted;
}

bsf_rx_connection_t *bsf_rx_connections_snapshot(bsf_rx_connections_t *c, size_t *n)
{
    *n = 0;
    pthread_mutex_lock(&c->lock);
    bsf_rx_connection_t *s = c->n ? calloc(c->n, sizeof *s) : NULL;
    for (size_t i = 0; s && i < c->n; i++) {
        s[i] = c->items[i];
        if ((s[i].id = strdup(c->items[i].id)) == NULL) {
            bsf_rx_connections_snapshot_free(s, i);
            s = NULL;
        }
    }
    if (s)
        *n = c->n;
    pthread_mutex_unlock(&c->lock);
    return s;
}

void bsf_rx_connections_write_metrics(bsf_rx_connections_t *c, bsf_text_t *out)
{
    size_t n;
    bsf_rx_connection_t *all = bsf_rx_connections_snapshot(c, &n);
    bsf_metrics_family(out, "ocbsf_diam_peer_tls", "gauge",
                       "1 when the neighbour's latest connection is TLS.");
    for (size_t i = 0; i < n; i++)
        bsf_metrics_u64_label(out, "ocbsf_diam_peer_tls", "peer", all[i].id, all[i].tls);
    /* seed 3.10.2's names; libfdcore's peer table says whether the connection is open */
    static const char *const direction[2] = {"diam_conn_network", "diam_conn_network_responder"};
    static const char *const help[2] = {
        "1 while the neighbour's connection, which the BSF initiated, is open.",
        "1 while the neighbour's connection, which the neighbour initiated, is open."};
    for (int inbound = 0; inbound < 2; inbound++) {
        bsf_metrics_family(out, direction[inbound], "gauge", help[inbound]);
        for (size_t i = 0; i < n; i++)
            if (all[i].inbound == (inbound == 1))
                bsf_metrics_u64_label2(out, direction[inbound], "peer", all[i].id, "tls",
                                       all[i].tls ? "true" : "false",
                                       bsf_rx_node_peer_open(all[i].id));
    }
    bsf_rx_connections_snapshot_free(all, n);
    bsf_metrics_family(out, "diam_failed_conn_network_total", "counter",
                       "Diameter connections that failed: connect (connection, TLS handshake or "
                       "capabilities exchange), certificate (a TLS certificate not naming the "
                       "peer).");
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n_failures; i++)
        for (int r = 0; r < FAIL_REASONS; r++)
            if (c->failures[i].n[r])
                bsf_metrics_u64_label2(out, "diam_failed_conn_network_total", "peer",
                                       c->failures[i].id, "reason", fail_reasons[r],
                                       c->failures[i].n[r]);
    pthread_mutex_unlock(&c->lock);
}

void bsf_rx_connections_snapshot_free(bsf_rx_connection_t *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].id);
    free(s);
}
