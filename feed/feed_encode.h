/* The wire form of a feed record: one JSON object per Kafka message (docs/feed.md), and the
 * message key. Pure functions, no I/O. */
#ifndef BSF_FEED_FEED_ENCODE_H
#define BSF_FEED_FEED_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "feed/feed_record.h"

#define BSF_FEED_FORMAT_VERSION 1
#define BSF_FEED_TXN_TEXT_MAX 48

/* What the feed adds to a record. */
typedef struct {
    uint16_t site_id;
    uint64_t instance;      /* the feed's start time (ms): transaction ids of a restart differ */
    size_t payload_len;     /* length of the message's payload (rec->payload_len is what was
                               copied: 0 when payloads are not copied) */
    size_t headers_dropped; /* headers left out beyond the bound */
    bool truncated;         /* a string or the payload was cut */
} bsf_feed_meta_t;

/* Appends the JSON object of `rec` to `out` (no trailing newline). Returns 0, or -1 when
 * memory ran out (out->failed is then set). */
int bsf_feed_encode(const bsf_feed_record_t *rec, const bsf_feed_meta_t *meta, bsf_text_t *out);

/* The transaction id as written in records: "<site>-<instance hex>-<id hex>". */
void bsf_feed_transaction_text(const bsf_feed_meta_t *meta, uint64_t id,
                               char out[BSF_FEED_TXN_TEXT_MAX]);

/* The Kafka key of `rec`: the correlation info, else the Diameter Session-Id, else the
 * binding id, else `txn_text`. Returns a pointer to it (into rec or txn_text) and its length. */
const char *bsf_feed_key(const bsf_feed_record_t *rec, const char *txn_text, size_t *len);

/* True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates). */
bool bsf_feed_utf8_valid(const unsigned char *s, size_t n);

#endif
