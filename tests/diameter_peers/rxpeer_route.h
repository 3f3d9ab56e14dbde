/*
 * rxpeer_route.h - "default route" for a test peer (an fd_rt_out callback).
 *
 * libfdcore only sends a request to a connected peer whose identity matches Destination-Host or
 * whose realm matches Destination-Realm, and never to a peer that did not advertise the
 * request's application.  A test AF connected only to the BSF, or a PCF connected only to the
 * BSF, must however send everything to that neighbour, whatever the destination or application
 * (negative tests send unknown applications on purpose).  The callback raises the score of the
 * listed neighbours to at least FD_SCORE_DEFAULT; it runs after libfdcore's own scoring
 * (priority below libfdcore's 10), so a better-matching peer still wins.
 */
#ifndef RXPEER_ROUTE_H
#define RXPEER_ROUTE_H

#include <stddef.h>

struct rxpeer_route {
	const char *const *ids; /* neighbours to use as default route */
	size_t n;
};

/* r must stay valid for the life of the process. 0 or errno. */
int rxpeer_route_install(struct rxpeer_route *r);

#endif /* RXPEER_ROUTE_H */
