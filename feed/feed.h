/* The message feed for monitoring (seed §3.43): a copy of every message a gateway receives
 * or sends, with its metadata, encoded as JSON (docs/feed.md) and produced to a Kafka topic.
 *
 * The feed never slows or fails the traffic it copies. bsf_feed_offer copies the record into
 * a bounded lock-free queue (into a preallocated 1 KiB cell, or one allocation for a larger
 * record); it never waits, and when the queue (records or bytes) is full the record is
 * dropped and counted. One feed thread owns the
 * Kafka client (librdkafka): it takes the records off the queue, encodes them and produces
 * them. Delivery is best effort: a record the broker cannot take within
 * `feed.message_timeout_ms` is counted as a delivery failure and forgotten.
 *
 * Usage by a gateway (any thread):
 *
 *     uint64_t txn = bsf_feed_transaction_id(feed);
 *     bsf_feed_record_t req = {.protocol = BSF_FEED_SBI, .direction = BSF_FEED_INGRESS,
 *                              .kind = BSF_FEED_REQUEST, .transaction_id = txn, ...};
 *     bsf_feed_offer(feed, &req);
 *     ... later, when the answer is sent, the same txn with .kind = BSF_FEED_RESPONSE
 *
 * Diameter: protocol BSF_FEED_DIAMETER, command_code / command_flags / application_id /
 * hop_by_hop / end_to_end / result_code and session_id instead of method / path / status;
 * the payload is the encoded message (it is written in base64). A Diameter request the BSF
 * relays to the PCF is an ingress request (from the AF) plus an egress request (to the PCF),
 * each with its transaction id, and their answers. */
#ifndef BSF_FEED_FEED_H
#define BSF_FEED_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "feed/feed_record.h"
#include "feed/feed_settings.h"

/* Bounds of what one record keeps (beyond them the record says what was left out). */
#define BSF_FEED_MAX_HEADERS 64    /* headers (or AVPs) per record */
#define BSF_FEED_MAX_STRING 8192   /* bytes of any one string (header value, path, ...) */

typedef struct bsf_feed bsf_feed_t;

/* Creates the Kafka producer and starts the feed thread. The broker need not be reachable.
 * `settings` is copied. Returns 0, or -1 with a message. */
int bsf_feed_create(const bsf_feed_settings_t *settings, uint16_t site_id, bsf_feed_t **out,
                    char *err, size_t err_cap);

/* Queues a copy of `rec` and returns at once; thread-safe, never blocks (no lock, no I/O).
 * Returns true when the record was queued, false when it was dropped (queue full, out of
 * memory, feed stopping); drops are counted by reason. */
bool bsf_feed_offer(bsf_feed_t *feed, const bsf_feed_record_t *rec);

/* A new transaction id for a request record and its response record. Thread-safe. */
uint64_t bsf_feed_transaction_id(bsf_feed_t *feed);

/* True when records carry payloads (`feed.copy_payload`): a gateway may skip preparing a
 * payload otherwise. */
bool bsf_feed_copies_payload(const bsf_feed_t *feed);

/* Stops the feed: every caller of bsf_feed_offer must have stopped. Hands what is queued to
 * the Kafka client, waits at most `feed.flush_timeout_ms` for delivery, counts what is left
 * as delivery failures and frees everything. NULL is allowed. */
void bsf_feed_destroy(bsf_feed_t *feed);

/* Prometheus text of the feed's counters (for bsf_ops_server_add_metrics; thread-safe). */
void bsf_feed_write_metrics(void *feed, bsf_text_t *out);

#endif
