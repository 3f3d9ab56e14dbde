/* A self-contained copy of a feed record: one block of memory holding the record, its headers
 * and every string and the payload it points to. Bounded: at most BSF_FEED_MAX_HEADERS headers,
 * BSF_FEED_MAX_STRING bytes per string and `max_payload` bytes of payload; what is cut is
 * noted so that the encoded record can say so. */
#ifndef BSF_FEED_FEED_SNAPSHOT_H
#define BSF_FEED_FEED_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "feed/feed_record.h"

typedef struct {
    size_t bytes;           /* size of the block */
    size_t payload_len;     /* length of the message's payload, copied or not */
    size_t headers_dropped; /* headers beyond BSF_FEED_MAX_HEADERS */
    bool truncated;         /* a string or the payload was cut */
    bsf_feed_record_t rec;  /* every pointer points into this allocation */
} bsf_feed_snapshot_t;

/* Bytes the copy of `rec` takes (payload included when copy_payload). */
size_t bsf_feed_snapshot_size(const bsf_feed_record_t *rec, bool copy_payload,
                              size_t max_payload);
/* Writes the copy of `rec` into `mem` (`bytes` = bsf_feed_snapshot_size with the same
 * arguments, aligned for pointers) and returns it; it lives as long as that memory, whose
 * owner frees it. */
bsf_feed_snapshot_t *bsf_feed_snapshot_write(const bsf_feed_record_t *rec, bool copy_payload,
                                             size_t max_payload, void *mem, size_t bytes);

#endif
