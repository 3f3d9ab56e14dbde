/* The socket of a Diameter neighbour's connection, and its addresses ("ip:port" of our end
 * and of the neighbour's) for the message feed. libfdcore has no accessor for them; its
 * public summary of a connection (fd_peer_cnx_proto_info, "TCP,soc#12") names the socket,
 * which getsockname / getpeername then read. The addresses are kept per neighbour and socket
 * until the neighbour connects or disconnects again (bsf_rx_peer_addrs_forget).
 * Thread-safe. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_PEER_ADDR_H
#define BSF_GATEWAYS_DIAMETER_RX_PEER_ADDR_H

#include <stdbool.h>

#include "common/sockaddr_text.h"
#include "gateways/diameter/rx_dict.h"

#define BSF_RX_ADDR_MAX BSF_SOCKADDR_TEXT_MAX

typedef struct {
    char local[BSF_RX_ADDR_MAX];
    char remote[BSF_RX_ADDR_MAX];
} bsf_rx_peer_addr_t;

/* The socket of `peer`'s current connection, or -1 (not connected). */
int bsf_rx_peer_socket(struct peer_hdr *peer);

typedef struct bsf_rx_peer_addrs bsf_rx_peer_addrs_t;

/* NULL when out of memory. */
bsf_rx_peer_addrs_t *bsf_rx_peer_addrs_new(void);
void bsf_rx_peer_addrs_free(bsf_rx_peer_addrs_t *c);

/* The addresses of `peer`'s current connection. Returns false (out emptied) when the
 * neighbour has no socket connection now. */
bool bsf_rx_peer_addrs_get(bsf_rx_peer_addrs_t *c, struct peer_hdr *peer, bsf_rx_peer_addr_t *out);
/* Forgets what is kept for `peer` (its connection changed). */
void bsf_rx_peer_addrs_forget(bsf_rx_peer_addrs_t *c, struct peer_hdr *peer);

#endif
