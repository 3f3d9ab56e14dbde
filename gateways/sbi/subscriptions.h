/* The /subscriptions resources of Nbsf_Management (TS 29.521 API 1.5.0, §4.2.6, §4.2.7):
 * create (POST, 201 with Location and a BsfSubscriptionResp), replace (PUT on a member, 200
 * with the BsfSubscriptionResp) and delete (DELETE, 204). Bodies are validated before
 * anything reaches the engine; the expiry granted is at most subscriptions.max_expiry from
 * now (also when none was asked) and the answer says which. Worker thread of the request. */
#ifndef BSF_GATEWAYS_SBI_SUBSCRIPTIONS_H
#define BSF_GATEWAYS_SBI_SUBSCRIPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "gateways/sbi/nbsf_internal.h"

#define BSF_SUBSCRIPTIONS "subscriptions"

/* Handles the request when `res` (the path after /nbsf-management/v1/, without the query)
 * is /subscriptions or one of its members: true when it did (answered or pending), false when
 * the resource is not ours. `query` is after the '?', or NULL (a query is refused: 400). */
bool bsf_subscriptions_route(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r, const char *res,
                             size_t res_len, const char *query, size_t query_len);

#endif
