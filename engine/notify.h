/* Notifications of subscriptions to binding events, as the engine hands them over: one item
 * per (subscription, binding event) that this site must notify, made inside the write
 * transaction of the event (engine/notify_match.h) and handed to the sink only once that
 * transaction is durable, on the engine thread, before the commands' answers. The sink must
 * only queue them (a notification never delays an answer). No LMDB here: gateways include
 * it. */
#ifndef BSF_ENGINE_NOTIFY_H
#define BSF_ENGINE_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"

typedef struct bsf_notify_item {
    struct bsf_notify_item *next;
    bsf_binding_id_t sub_id;   /* the subscription (its Location's last segment) */
    uint64_t event_hlc;        /* HLC of the binding event */
    uint64_t committed_ns;     /* monotonic time of the commit (set at hand-off) */
    const char *uri;           /* notifUri, NUL-terminated, in `data` */
    const char *supi;          /* the subscription's SUPI (3gpp-Sbi-Correlation-Info), in
                                  `data` */
    const char *body;          /* the BsfNotification as msgpack, in `data` */
    size_t body_len;
    char data[];
} bsf_notify_item_t;

/* Where committed notifications go. `deliver` takes ownership of the list (free each item
 * with free()); engine thread, must not block. */
typedef struct {
    void *ctx;
    void (*deliver)(void *ctx, bsf_notify_item_t *items);
} bsf_notify_sink_t;

/* Frees a list of items. NULL is ignored. Any thread. */
void bsf_notify_items_free(bsf_notify_item_t *items);

#endif
