/* rxpeer_route.c - see rxpeer_route.h */
#include "rxpeer_route.h"

#include <string.h>
#include <strings.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#define RXPEER_ROUTE_PRIORITY 1 /* libfdcore's built-in scoring uses 10; lower runs later */

static int rxpeer_route_out(void *cbdata, struct msg **pmsg, struct fd_list *candidates)
{
	struct rxpeer_route *r = cbdata;
	(void)pmsg;
	for (struct fd_list *li = candidates->next; li != candidates; li = li->next) {
		struct rtd_candidate *c = (struct rtd_candidate *)li;
		for (size_t i = 0; i < r->n; i++) {
			if (strlen(r->ids[i]) == c->diamidlen && strncasecmp(r->ids[i], c->diamid, c->diamidlen) == 0) {
				if (c->score < FD_SCORE_DEFAULT)
					c->score = FD_SCORE_DEFAULT;
				break;
			}
		}
	}
	return 0;
}

int rxpeer_route_install(struct rxpeer_route *r)
{
	if (r == NULL || r->n == 0)
		return 0;
	return fd_rt_out_register(rxpeer_route_out, r, RXPEER_ROUTE_PRIORITY, NULL);
}
