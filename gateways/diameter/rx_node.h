/* The Diameter node inside bsfd: libfdcore configured from our settings (identity, realm,
 * listen addresses, port, TCP and optionally SCTP, the peers we connect to, who may connect
 * to us), the Rx dictionary, and start / stop. CER/CEA, DWR/DWA and DPR/DPA are libfdcore's;
 * stopping sends DPR to every open peer.
 *
 * libfdcore is a process-wide singleton: one node per process, started once. Its log
 * handler and peer-validation callback take no user pointer, so the acceptance list and the
 * log level live in this file's static state (set before libfdcore's threads start). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_NODE_H
#define BSF_GATEWAYS_DIAMETER_RX_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/text.h"
#include "gateways/diameter/rx_dict.h"
#include "gateways/diameter/rx_settings.h"

/* Initialises libfdcore with a configuration made from `s`, loads the dictionaries and
 * resolves the Rx one into *rx (with OCNF-SERVICE-COOKIE). Returns 0 or -1 with a message. */
int bsf_rx_node_init(const bsf_diameter_settings_t *s, bsf_rx_dict_t *rx, char *err, size_t cap);
/* Starts the node (after the callbacks are registered). Returns 0 or -1 with a message. */
int bsf_rx_node_start(char *err, size_t cap);
/* Disconnects every peer (DPR/DPA) and stops libfdcore; waits for it. */
void bsf_rx_node_stop(void);

/* True when the neighbour `id` is connected (STATE_OPEN). */
bool bsf_rx_node_peer_open(const char *id);
/* Makes `peer_id` the only routing candidate of the request `msg` (replacing the candidates
 * libfdcore attached to it at a previous send). Returns 0, ENOENT (unknown or not connected
 * peer) or another error. */
int bsf_rx_node_route_to(struct msg *msg, const char *peer_id);

/* Ends the connection of `peer` gracefully: DPR with the Disconnect-Cause named `cause`
 * ("REBOOTING", "BUSY", "DO_NOT_WANT_TO_TALK_TO_YOU"), the DPA, the close, from the peer's
 * own state machine. The peer may connect again. Returns 0 or an errno-style code. */
int bsf_rx_node_disconnect(struct peer_hdr *peer, const char *cause);

/* Prometheus gauge ocbsf_diam_peer_up{peer} of every known neighbour, and with TLS
 * dgw_tls_cert_expiration_seconds. */
void bsf_rx_node_write_peers(bsf_text_t *out);

#endif
