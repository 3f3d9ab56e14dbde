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
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_tls.h"

struct bsf_rx_connections {
    pthread_mutex_t lock;
    bsf_rx_connection_t *items;
    size_t n, cap;
    atomic_size_t untrusted; /* entries with trusted false */
    struct fd_hook_hdl *hook;
};

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
    if (rc) {
        snprintf(err, cap, "diameter: cannot register the connection hook: %s", strerror(rc));
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
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i].id);
    free(c->items);
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
    bsf_text_printf(out, "# HELP ocbsf_diam_peer_tls 1 when the neighbour's latest connection "
                         "is TLS.\n# TYPE ocbsf_diam_peer_tls gauge\n");
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n; i++)
        bsf_text_printf(out, "ocbsf_diam_peer_tls{peer=\"%s\"} %d\n", c->items[i].id,
                        c->items[i].tls);
    pthread_mutex_unlock(&c->lock);
}

void bsf_rx_connections_snapshot_free(bsf_rx_connection_t *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].id);
    free(s);
}
