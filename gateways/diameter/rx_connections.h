/* The Diameter neighbours' connections as the gateway knows them: for each neighbour, when its
 * current connection was established, whether it connected to us (inbound), whether it is
 * TLS and whether its certificate names it. Filled from libfdcore's connect hook, which runs
 * on the peer's own state-machine thread while the connection is stable (libfdcore's own
 * accessors are not safe from other threads) and before any message of the connection is
 * handed on. Thread-safe. Used by the proxy (trust), repaving (rx_repaving.h) and the
 * metrics. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_CONNECTIONS_H
#define BSF_GATEWAYS_DIAMETER_RX_CONNECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"

typedef struct bsf_rx_connections bsf_rx_connections_t;

typedef struct {
    char *id;                /* owned by the table, or by a snapshot */
    uint64_t established_ms; /* wall clock */
    bool inbound;            /* the neighbour connected to us (not one of diameter.peers) */
    bool tls;
    bool trusted; /* not TLS, or TLS with a certificate naming the neighbour's identity */
    bool ending;  /* claimed by bsf_rx_connections_claim */
} bsf_rx_connection_t;

/* Registers the hook (before the node starts). Returns 0 or -1 with a message. */
int bsf_rx_connections_start(bsf_rx_connections_t **out, char *err, size_t cap);
/* After the node stopped (the hook may run until then). */
void bsf_rx_connections_free(bsf_rx_connections_t *c);

/* The latest connection of `id` (case-insensitive) into *out (out->id is not set). False when
 * the neighbour never connected. */
bool bsf_rx_connections_get(bsf_rx_connections_t *c, const char *id, bsf_rx_connection_t *out);

/* Marks the connection of `id` established at `established_ms` as being ended (its DPR may
 * not have been acted on yet). False when that is not its latest connection any more or it
 * was marked already; a new connection clears the mark. */
bool bsf_rx_connections_claim(bsf_rx_connections_t *c, const char *id, uint64_t established_ms);

/* False when the latest connection of `id` (len bytes) is TLS with a certificate that does not
 * name it. libfdcore checks that for the peers it validates, not for those of diameter.peers
 * connecting to us: such a connection gets a DPR at once, and until it is gone the gateway
 * neither routes to it nor takes its requests. Cheap when every connection is trusted. */
bool bsf_rx_connections_trusted(bsf_rx_connections_t *c, const char *id, size_t len);

/* A copy of every neighbour's latest connection: *n entries, each id allocated; free with
 * bsf_rx_connections_snapshot_free. NULL when empty or out of memory. */
bsf_rx_connection_t *bsf_rx_connections_snapshot(bsf_rx_connections_t *c, size_t *n);
void bsf_rx_connections_snapshot_free(bsf_rx_connection_t *s, size_t n);

/* ocbsf_diam_peer_tls{peer}: 1 when the neighbour's latest connection is TLS;
 * diam_conn_network{peer,tls} / diam_conn_network_responder{peer,tls}: 1 while the
 * neighbour's latest connection, opened by the BSF / by the neighbour, is open;
 * diam_failed_conn_network_total{peer,reason}: failed connections (seed 3.10.2's name, with
 * the _total of a counter). */
void bsf_rx_connections_write_metrics(bsf_rx_connections_t *c, bsf_text_t *out);

#endif
