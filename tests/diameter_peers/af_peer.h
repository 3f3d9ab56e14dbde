/* af_peer.h - state of the fake AF shared by its command handlers (af_peer.c) and load mode (af_load.c). */
#ifndef AF_PEER_H
#define AF_PEER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rxpeer_app.h"

struct af {
	struct rxpeer_app app;
	const char *dest_realm;       /* default Destination-Realm of our requests */
	const char *dest_host;        /* default Destination-Host, or NULL */
	atomic_int auto_str;          /* send STR after answering an ASR */
	atomic_uint_fast64_t sid_counter;
	uint32_t boot;                /* high part of our Session-Ids */
	atomic_int load_running;
};

/* New Session-Id "<identity>;<boot>;<counter>" (RFC 6733 clause 8.8 format). */
void af_sid_make(struct af *af, char *buf, size_t size);

#endif /* AF_PEER_H */
