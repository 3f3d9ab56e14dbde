/* Finds the notifications a binding event causes, inside the engine's write transaction,
 * before the event is applied (a deregistration still sees the binding it ends).
 *
 * Georedundancy: a subscription is notified only by the site that created it (the site in
 * its id), whichever site the binding event came from: every site applies every event once
 * (its own when written, the others' from the replicated log, deduplicated by (site, seq)),
 * so each (subscription, event) is matched by exactly one site, once. Engine thread only. */
#ifndef BSF_ENGINE_NOTIFY_MATCH_H
#define BSF_ENGINE_NOTIFY_MATCH_H

#include <lmdb.h>
#include <msgpack.h>

#include "core/event.h"
#include "engine/notify.h"
#include "engine/store.h"
#include "engine/sub_index.h"

typedef struct {
    bsf_notify_item_t *head, *tail;
    size_t n;
    msgpack_sbuffer scratch; /* the bodies are encoded here first (kept between events; a
                                zeroed one is empty) */
    msgpack_sbuffer binding; /* the binding's part of the bodies, once per event (the same) */
} bsf_notify_list_t;

/* Appends to `out` one item per live, unexpired subscription of idx's site that the event
 * concerns (core/notification.h). Updates, MBS bindings and subscription events cause none.
 * The subscribed values and the decoded subscriptions come from `idx` (engine/sub_index.h:
 * a UE nobody subscribed to costs no store read; a cache miss reads the UE's subscriptions
 * and caches them). `zone` is scratch (cleared here). Returns 0 (an item that cannot be
 * allocated is logged and left out) or an LMDB code (MDB_CORRUPTED for a record that does
 * not parse). */
int bsf_notify_match(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev, int64_t now_ms,
                     bsf_sub_index_t *idx, msgpack_zone *zone, bsf_notify_list_t *out);

/* Frees the list's items and empties it (the scratch buffer stays). */
void bsf_notify_list_clear(bsf_notify_list_t *l);

/* Frees the items and the scratch buffer (the list's end). */
void bsf_notify_list_destroy(bsf_notify_list_t *l);

#endif
