/* An event received as bytes (from Kafka or from another store's log), decoded and with its
 * stored forms made: everything applying it needs that is pure CPU work, so that it can be
 * done on another thread than the store's writer (bsfctl replay and rebuild do so).
 *
 *   prepare (any thread)   bsf_prepared_event_make: copy, decode, log frame, binding frame
 *   write (the writer)     bsf_store_write_prepared: log append + projection apply
 */
#ifndef BSF_ENGINE_PREPARED_EVENT_H
#define BSF_ENGINE_PREPARED_EVENT_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/event.h"
#include "engine/store.h"

typedef struct {
    bsf_event_t ev;            /* ev.binding points to `binding` below: do not move the struct */
    bsf_pcf_binding_t binding; /* registrations and updates */
    const char *log_frame;     /* the event as the embedded log stores it */
    size_t log_frame_len;
    const char *binding_frame; /* the record's binding; NULL: made by the writer */
    size_t binding_frame_len;
} bsf_prepared_event_t;

/* Prepares the encoded event `raw` (copied: it need not outlive the call) into *out, every
 * byte allocated from `zone`; `tmp` is a reusable buffer. `stored`, when not NULL, is the
 * event's stored form in another embedded log (bsf_log_visit_stored_fn), copied as the log
 * frame instead of compressing the event again. `binding_frame`: also make the binding's
 * frame (else the writer makes it: which side does it balances the two threads).
 * Returns 0, or -1 with the reason in err (not an event, or out of memory). */
int bsf_prepared_event_make(const char *raw, size_t len, const char *stored, size_t stored_len,
                            bool binding_frame, msgpack_zone *zone, msgpack_sbuffer *tmp,
                            bsf_prepared_event_t *out, char *err, size_t err_cap);

/* Appends the prepared event to the log and applies it, as bsf_store_write_raw_event does.
 * Returns 0 or an LMDB error code. */
int bsf_store_write_prepared(bsf_store_t *s, MDB_txn *txn, const bsf_prepared_event_t *pe,
                             msgpack_sbuffer *scratch, uint64_t *position);

#endif
