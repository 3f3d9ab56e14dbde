/* Copies of the Rx gateway's messages for the message feed (seed §3.43, docs/feed.md).
 *
 * Every routable message the Diameter node receives or sends (not CER/CEA, DWR/DWA,
 * DPR/DPA) becomes one record. The records are offered from libfdcore's message hooks, so
 * they hold each message as it is on the wire, with its final Hop-by-Hop id, and include the
 * answers libfdcore makes by itself:
 *
 *   request received  ingress request   (the neighbour's peer thread, as read)
 *   answer sent       ingress response  (relayed, made by the gateway or by libfdcore)
 *   request sent      egress request    (a forwarded request; one record per attempt)
 *   answer received   egress response
 *
 * A request and its answer share a transaction id, kept with the request message in
 * libfdcore's per-message hook data; the ingress and egress exchanges of one forwarded
 * request have two. The binding id is asked of the gateway when a request is forwarded and
 * kept with the request for the answers (an ingress request record never has one: the
 * binding is looked up after it is received).
 *
 * Nothing of this runs when the feed is off: the hooks are registered only with a feed. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_FEED_H
#define BSF_GATEWAYS_DIAMETER_RX_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/binding_id.h"
#include "gateways/diameter/rx_dict.h"
#include "feed/feed.h"

/* The binding that routed `request` (a request the gateway is forwarding), if any. Called
 * from libfdcore's sending threads. */
typedef bool (*bsf_rx_feed_binding_fn)(void *ctx, struct msg *request, bsf_binding_id_t *out);

typedef struct bsf_rx_feed bsf_rx_feed_t;

/* Registers the hooks with libfdcore (before it starts). `feed` and `rx` must outlive
 * libfdcore's threads. Returns 0 or -1 with a message. */
int bsf_rx_feed_start(bsf_feed_t *feed, const bsf_rx_dict_t *rx, bsf_rx_feed_binding_fn binding_of,
                      void *ctx, bsf_rx_feed_t **out, char *err, size_t cap);
/* After libfdcore has stopped (no hook runs any more). NULL is allowed. */
void bsf_rx_feed_free(bsf_rx_feed_t *f);

#endif
