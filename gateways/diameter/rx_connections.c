/* The neighbours' connections; see rx_connections.h. */
#include "gateways/diameter/rx_connections.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#include "common/clock.h"
#include "common/diag.h"

struct bsf_rx_connections {
    pthread_mutex_t lock;
    bsf_rx_connection_t *items;
    size_t n, cap;
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
    bsf_rx_connection_t now = {
        .established_ms = bsf_clock_wall_ms(),
        /* libfdcore makes a peer that connected to us, unknown to its configuration, expire
         * on inactivity; peers of diameter.peers do not. */
        .inbound = peer->info.config.pic_flags.exp == PI_EXP_INACTIVE,
        .tls = strstr(proto, "TLS") != NULL,
    };
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
    if (!e && c->n < c->cap && (now.id = strdup(peer->info.pi_diamid)) != NULL)
        e = &c->items[c->n++];
    else if (e)
        now.id = e->id;
    if (e)
        *e = now;
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
