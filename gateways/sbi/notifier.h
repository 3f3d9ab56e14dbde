/* Delivery of Nbsf_Management notifications (BsfNotification POSTed to the subscriptions'
 * notifUri, the `myNotification` callback of TS 29.521) through the SBI client.
 *
 * The engine hands over the notifications of each committed transaction
 * (bsf_notifier_deliver, engine/notify.h): they are only queued there, so a notification
 * never delays the answer to the registration that caused it. On the SBI client's thread,
 * each notifUri (a subscriber) has a bounded FIFO and one notification in flight, so a
 * subscriber sees its notifications in event order. Delivery is at least once: 5xx, 429,
 * timeouts and connection failures are retried with a doubling back-off (notify.retries),
 * 307/308 are followed; a notification that still fails, is refused (4xx), or does not fit
 * its subscriber's queue (the oldest waiting one goes) is dropped, counted in
 * bsf_notifications_dropped_total{reason} and logged. The hand-off from the engine to the
 * client thread is bounded too (notify.handoff_max, for when that thread falls behind or has
 * no client yet): beyond it the oldest item there is dropped (reason handoff_full). */
#ifndef BSF_GATEWAYS_SBI_NOTIFIER_H
#define BSF_GATEWAYS_SBI_NOTIFIER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "engine/notify.h"
#include "gateways/sbi/sbi_client.h"

#define BSF_NOTIFIER_HANDOFF_DEFAULT 100000u /* notify.handoff_max's default (0 in the config) */

typedef struct {
    unsigned queue_per_subscriber; /* notify.queue_per_subscriber */
    unsigned max_subscribers;      /* notify.max_subscribers */
    unsigned handoff_max;          /* notify.handoff_max: engine -> client thread list */
    unsigned retries;              /* notify.retries */
    unsigned timeout_ms;           /* notify.timeout_ms: one attempt */
    unsigned backoff_ms;           /* notify.backoff_ms */
    unsigned backoff_max_ms;       /* notify.backoff_max_ms */
    int priority;                  /* notify.priority */
} bsf_notifier_config_t;

typedef struct bsf_notifier bsf_notifier_t;

/* A notifier that queues until it has a client (bsf_notifier_set_client). Main thread.
 * Returns NULL when out of memory. */
bsf_notifier_t *bsf_notifier_create(const bsf_notifier_config_t *cfg);

/* The client that sends (not owned; it must be stopped before bsf_notifier_destroy). Main
 * thread, once; what was queued before is sent then. */
void bsf_notifier_set_client(bsf_notifier_t *n, bsf_sbi_client_t *client);

/* The engine's sink (bsf_notify_sink_t.deliver; ctx is the notifier): takes the items.
 * When more than handoff_max wait for the client thread, the oldest go (counted, one log
 * line each). Engine thread; never blocks beyond a mutex. */
void bsf_notifier_deliver(void *ctx, bsf_notify_item_t *items);

/* Prometheus text (bsf_ops_metrics_fn): sent, dropped by reason, attempts, waiting (in the
 * subscribers' queues, and in the hand-off), and the delay from the commit to the receiver's answer. Any thread. */
void bsf_notifier_write_metrics(void *ctx, bsf_text_t *out);

/* Frees everything still queued. After the engine stopped (no more deliver) and the client
 * stopped (no more completions). NULL is ignored. Main thread. */
void bsf_notifier_destroy(bsf_notifier_t *n);

#endif
