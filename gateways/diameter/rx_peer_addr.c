/* Socket addresses of the neighbours' connections (see rx_peer_addr.h). */
#include "gateways/diameter/rx_peer_addr.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/sockaddr_text.h"

#define SLOTS 64 /* neighbours kept; beyond that the addresses are read every time */

typedef struct {
    const struct peer_hdr *peer; /* NULL: free */
    int sock;
    bsf_rx_peer_addr_t addr;
} slot_t;

struct bsf_rx_peer_addrs {
    pthread_mutex_t mu;
    slot_t slots[SLOTS];
    unsigned next_victim;
};

bsf_rx_peer_addrs_t *bsf_rx_peer_addrs_new(void)
{
    bsf_rx_peer_addrs_t *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void bsf_rx_peer_addrs_free(bsf_rx_peer_addrs_t *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* From libfdcore's "PROTO[,TLS],soc#N". */
int bsf_rx_peer_socket(struct peer_hdr *peer)
{
    char info[64] = "";
    if (fd_peer_cnx_proto_info(peer, info, sizeof info) != 0)
        return -1;
    const char *p = strstr(info, "soc#");
    if (!p)
        return -1;
    char *end = NULL;
    long sock = strtol(p + 4, &end, 10);
    return end != p + 4 && sock >= 0 && sock < 1L << 30 ? (int)sock : -1;
}

static bool read_addrs(int sock, bsf_rx_peer_addr_t *out)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    memset(out, 0, sizeof *out);
    if (getsockname(sock, (struct sockaddr *)&ss, &len) != 0)
        return false;
    bsf_sockaddr_format(&ss, out->local, sizeof out->local);
    len = sizeof ss;
    if (getpeername(sock, (struct sockaddr *)&ss, &len) != 0)
        return false;
    bsf_sockaddr_format(&ss, out->remote, sizeof out->remote);
    return true;
}

bool bsf_rx_peer_addrs_get(bsf_rx_peer_addrs_t *c, struct peer_hdr *peer, bsf_rx_peer_addr_t *out)
{
    memset(out, 0, sizeof *out);
    int sock = bsf_rx_peer_socket(peer);
    if (sock < 0)
        return false;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < SLOTS; i++)
        if (c->slots[i].peer == peer && c->slots[i].sock == sock) {
            *out = c->slots[i].addr;
            pthread_mutex_unlock(&c->mu);
            return true;
        }
    pthread_mutex_unlock(&c->mu);
    if (!read_addrs(sock, out))
        return false;
    pthread_mutex_lock(&c->mu);
    slot_t *s = NULL;
    for (size_t i = 0; i < SLOTS && !s; i++) /* the neighbour's previous connection */
        if (c->slots[i].peer == peer)
            s = &c->slots[i];
    for (size_t i = 0; i < SLOTS && !s; i++)
        if (!c->slots[i].peer)
            s = &c->slots[i];
    if (!s)
        s = &c->slots[c->next_victim++ % SLOTS];
    s->peer = peer;
    s->sock = sock;
    s->addr = *out;
    pthread_mutex_unlock(&c->mu);
    return true;
}

void bsf_rx_peer_addrs_forget(bsf_rx_peer_addrs_t *c, struct peer_hdr *peer)
{
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < SLOTS; i++)
        if (c->slots[i].peer == peer)
            c->slots[i].peer = NULL;
    pthread_mutex_unlock(&c->mu);
}
