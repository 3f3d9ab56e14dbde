/*
 * rxpeer_fd.h - bring up libfdcore for a standalone Rx test peer.
 *
 * rxpeer_fd_init() writes a freeDiameter configuration to a temporary file (removed again after
 * parsing), parses it and loads the dictionary extensions, then fixes the listen address through
 * the API: libfdcore 1.2.1 silently drops a loopback or private `ListenOn` address (its
 * fd_ep_add_merge() filters them unless EP_ACCEPTALL is given) and would listen on 0.0.0.0.
 * Between rxpeer_fd_init() and rxpeer_fd_start() the caller sets up the dictionary (rx_dict),
 * dispatch callbacks and hooks.
 *
 * libfdcore is a process-wide singleton, so this module is too (one peer per process).
 */
#ifndef RXPEER_FD_H
#define RXPEER_FD_H

#include <stddef.h>
#include <stdint.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#include "rxpeer_json.h"

/* A peer to connect to (ConnectPeer). */
struct rxpeer_fd_peer {
	const char *id;   /* its Diameter identity: must match the Origin-Host of its CER/CEA */
	const char *host; /* IP address literal */
	uint16_t port;
};

struct rxpeer_fd_opts {
	const char *identity;
	const char *realm;
	const char *listen;      /* address literal to listen on and advertise; default 127.0.0.1 */
	uint16_t port;           /* 0: do not listen */
	const char *ext_dir;     /* where the .fdx live; NULL: libfdcore's default (/usr/lib/freeDiameter) */
	unsigned app_threads;    /* dispatch threads (AppServThreads); 0: libfdcore default (4) */
	unsigned tc_timer;       /* reconnect interval in s; 0: default (30) */
	const struct rxpeer_fd_peer *connect;
	size_t n_connect;
	const char *const *accept; /* identities allowed to connect to us (NULL-terminated), or NULL */
	int accept_any;          /* accept any incoming peer */
	int log_level;           /* freeDiameter messages at or above this level go to stderr */
	/* TLS (all NULL / 0: none): PEM files, the TLS port to listen on (SecPort), whether the
	 * ConnectPeer connections use TLS from the start, and a GnuTLS priority string. */
	const char *tls_cert, *tls_key, *tls_ca, *tls_priority;
	uint16_t tls_port;
	int tls_connect;
};

int rxpeer_fd_init(const struct rxpeer_fd_opts *o, char *err, size_t errlen);
int rxpeer_fd_start(char *err, size_t errlen);
/* Shut libfdcore down (if it is not down already) and wait for it. */
void rxpeer_fd_stop(void);
/* 1 once libfdcore has stopped -- on request, or by itself after an internal fatal error. */
int rxpeer_fd_is_down(void);

/* State name of a peer ("STATE_OPEN", ...), or "unknown". */
const char *rxpeer_fd_peer_state(const char *id);
/* Wait until the peer is STATE_OPEN. 0, ETIMEDOUT, or ECONNABORTED if libfdcore stopped. */
int rxpeer_fd_wait_open(const char *id, uint32_t timeout_ms);
/* Member `key`: [{"id":..,"realm":..,"state":..}] for all known peers. */
void rxpeer_fd_peers_json(struct rxpeer_json *j, const char *key);

#endif /* RXPEER_FD_H */
