/* Copies of the Nbsf_Management requests and responses for the message feed (seed §3.43):
 * the SBI side of feed. A request record is offered when the request is complete,
 * its response record when the answer is sent; the transaction in between (what the response
 * record needs from the request) belongs to the request in progress. */
#ifndef BSF_GATEWAYS_SBI_SBI_FEED_H
#define BSF_GATEWAYS_SBI_SBI_FEED_H

#include "feed/feed.h"
#include "gateways/sbi/h2_server.h"

typedef struct bsf_sbi_feed_txn bsf_sbi_feed_txn_t;

/* Offers the record of a request given to the handler; returns the transaction for its
 * response (NULL when out of memory: the response then has no record). */
bsf_sbi_feed_txn_t *bsf_sbi_feed_request(bsf_feed_t *feed, bsf_h2_stream_t *s,
                                         const bsf_h2_request_t *r);
/* The same for a request the server refused before the handler: only its request line is
 * known (no headers, no body). */
bsf_sbi_feed_txn_t *bsf_sbi_feed_refused(bsf_feed_t *feed, bsf_h2_stream_t *s);
/* Offers the record of the response being sent (as given to bsf_h2_respond) and frees
 * `txn`. */
void bsf_sbi_feed_response(bsf_sbi_feed_txn_t *txn, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t body_len);
/* Frees `txn` without a response record (no answer was sent: the client went away). NULL is
 * allowed. Any thread. */
void bsf_sbi_feed_txn_free(bsf_sbi_feed_txn_t *txn);

#endif
