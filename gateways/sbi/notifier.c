/* Notification delivery: per-subscriber queues on the SBI client's thread. */
#include "gateways/sbi/notifier.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/fifo.h"
#include "common/metrics_text.h"
#include "gateways/sbi/json_codec.h"

#define BUCKETS 4096
#define CALLBACK_NAME "Nbsf_Management_Notification" /* 3gpp-Sbi-Callback */

typedef enum { DROP_QUEUE_FULL, DROP_SUBSCRIBERS, DROP_FAILED, DROP_REFUSED, DROP_STOPPED,
               DROP_HANDOFF_FULL, DROP_COUNT } drop_reason_t;
static const char *const drop_names[DROP_COUNT] = {"queue_full", "subscribers", "failed",
                                                   "refused", "stopped", "handoff_full"};

static const double delay_bounds_ms[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
                                         10000, 30000};
#define DELAY_BUCKETS (sizeof delay_bounds_ms / sizeof delay_bounds_ms[0])

typedef struct subscriber {
    struct subscriber *next; /* bucket chain */
    bsf_notifier_t *owner;
    bsf_notify_item_t *head, *tail; /* waiting */
    size_t n;
    bsf_notify_item_t *in_flight;
    char uri[];
} subscriber_t;

struct bsf_notifier {
    bsf_notifier_config_t cfg;
    bsf_sbi_retry_profile_t retry;
    unsigned deadline_ms;
    /* engine thread -> client thread */
    pthread_mutex_t mu;
    bsf_notify_item_t *inbox_head, *inbox_tail;
    size_t inbox_n; /* at most cfg.handoff_max */
    bool posted;
    bsf_sbi_client_t *client;
    /* client thread */
    subscriber_t *buckets[BUCKETS];
    size_t n_subscribers;
    msgpack_zone zone;
    msgpack_sbuffer json;
    /* metrics */
    atomic_uint_fast64_t queued, sent, attempts, dropped[DROP_COUNT];
    atomic_uint_fast64_t waiting, handoff;
    atomic_uint_fast64_t delay[DELAY_BUCKETS + 1], delay_sum_us;
};

/* Deadline of one notification: every attempt and every back-off between them. */
static unsigned deadline_of(const bsf_notifier_config_t *c)
{
    uint64_t total = (uint64_t)c->timeout_ms * (c->retries + 1), b = c->backoff_ms;
    for (unsigned i = 0; i < c->retries; i++, b *= 2)
        total += b < c->backoff_max_ms ? b : c->backoff_max_ms;
    return total > 600000 ? 600000 : (unsigned)total;
}

bsf_notifier_t *bsf_notifier_create(const bsf_notifier_config_t *cfg)
{
    bsf_notifier_t *n = calloc(1, sizeof *n);
    if (!n || !msgpack_zone_init(&n->zone, 8192)) {
        free(n);
        return NULL;
    }
    n->cfg = *cfg;
    if (!n->cfg.handoff_max)
        n->cfg.handoff_max = BSF_NOTIFIER_HANDOFF_DEFAULT;
    n->retry = (bsf_sbi_retry_profile_t){.max_retries = cfg->retries,
                                         .n_statuses = 5,
                                         .statuses = {429, 500, 502, 503, 504},
                                         .on_timeout = true,
                                         .on_connect_error = true,
                                         .attempt_timeout_ms = cfg->timeout_ms,
                                         .backoff_initial_ms = cfg->backoff_ms,
                                         .backoff_max_ms = cfg->backoff_max_ms,
                                         .honour_retry_after = true};
    n->deadline_ms = deadline_of(cfg);
    pthread_mutex_init(&n->mu, NULL);
    msgpack_sbuffer_init(&n->json);
    return n;
}

/* ---- the client thread ------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void drop(bsf_notifier_t *n, bsf_notify_item_t *it, drop_reason_t why, const char *detail)
{
    char id[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&it->sub_id, id);
    atomic_fetch_add(&n->dropped[why], 1);
    BSF_WARN("notify", "notification dropped (%s) for subscription %s to %s%s%s",
             drop_names[why], id, it->uri, detail ? ": " : "", detail ? detail : "");
    free(it);
}

static subscriber_t **find(bsf_notifier_t *n, const char *uri)
{
    subscriber_t **p = &n->buckets[hash(uri) % BUCKETS];
    while (*p && strcmp((*p)->uri, uri) != 0)
        p = &(*p)->next;
    return p;
}

static void on_done(void *arg, const bsf_sbi_response_t *rsp);

/* Takes the oldest waiting notification off the subscriber's queue (not empty). */
static bsf_notify_item_t *take_oldest(subscriber_t *s)
{
    bsf_notify_item_t *it = s->head;
    s->head = it->next;
    if (!s->head)
        s->tail = NULL;
    s->n--;
    atomic_fetch_sub(&s->owner->waiting, 1);
    it->next = NULL;
    return it;
}

/* Sends the subscriber's next waiting notification; frees the subscriber when none waits. */
static void send_next(subscriber_t *s)
{
    bsf_notifier_t *n = s->owner;
    while (s->head) {
        bsf_notify_item_t *it = take_oldest(s);
        msgpack_object obj;
        size_t off = 0;
        msgpack_zone_clear(&n->zone);
        msgpack_sbuffer_clear(&n->json);
        if (msgpack_unpack(it->body, it->body_len, &off, &n->zone, &obj) !=
                MSGPACK_UNPACK_SUCCESS ||
            bsf_json_write(&obj, &n->json, NULL, NULL)) {
            drop(n, it, DROP_FAILED, "cannot render the body");
            continue;
        }
        bsf_sbi_request_t req = {.method = "POST", .uri = it->uri,
                                 .content_type = "application/json", .body = n->json.data,
                                 .body_len = n->json.size, .timeout_ms = n->deadline_ms,
                                 .priority = n->cfg.priority, .correlation_info = it->supi,
                                 /* no profile rule: it is sent as configured */
                                 .metric = {BSF_MP_EGRESS_NOTIFY, n->cfg.priority},
                                 .callback = CALLBACK_NAME, .retry = &n->retry};
        char err[128];
        s->in_flight = it;
        if (bsf_sbi_client_submit(n->client, &req, on_done, s, err, sizeof err) == 0)
            return;
        s->in_flight = NULL;
        drop(n, it, DROP_FAILED, err);
    }
    subscriber_t **p = find(n, s->uri);
    *p = s->next;
    n->n_subscribers--;
    free(s);
}

static void record_delay(bsf_notifier_t *n, uint64_t committed_ns)
{
    uint64_t us = (bsf_clock_mono_ns() - committed_ns) / 1000;
    size_t b = 0;
    while (b < DELAY_BUCKETS && (double)us / 1000.0 > delay_bounds_ms[b])
        b++;
    atomic_fetch_add(&n->delay[b], 1);
    atomic_fetch_add(&n->delay_sum_us, us);
}

static void on_done(void *arg, const bsf_sbi_response_t *rsp)
{
    subscriber_t *s = arg;
    bsf_notifier_t *n = s->owner;
    bsf_notify_item_t *it = s->in_flight;
    s->in_flight = NULL;
    atomic_fetch_add(&n->attempts, rsp->attempts);
    char detail[160];
    if (rsp->result == BSF_SBI_OK && rsp->status >= 200 && rsp->status < 300) {
        atomic_fetch_add(&n->sent, 1);
        record_delay(n, it->committed_ns);
        free(it);
    } else if (rsp->result == BSF_SBI_ERR_STOPPED) {
        drop(n, it, DROP_STOPPED, NULL);
    } else if (rsp->result == BSF_SBI_OK) {
        snprintf(detail, sizeof detail, "answered %d after %u attempt(s)", rsp->status,
                 rsp->attempts);
        drop(n, it, rsp->status >= 400 && rsp->status < 500 && rsp->status != 429 ? DROP_REFUSED
                                                                                  : DROP_FAILED,
             detail);
    } else {
        snprintf(detail, sizeof detail, "%s after %u attempt(s)",
                 rsp->error ? rsp->error : "no answer", rsp->attempts);
        drop(n, it, DROP_FAILED, detail);
    }
    send_next(s);
}

/* Queues one item for its subscriber (a new one when needed) and starts sending. */
static void enqueue(bsf_notifier_t *n, bsf_notify_item_t *it)
{
    subscriber_t **p = find(n, it->uri), *s = *p;
    if (!s) {
        size_t len = strlen(it->uri);
        if (n->n_subscribers >= n->cfg.max_subscribers || !(s = calloc(1, sizeof *s + len + 1))) {
            drop(n, it, DROP_SUBSCRIBERS, "no room for another notifUri");
            return;
        }
        memcpy(s->uri, it->uri, len + 1);
        s->owner = n;
        *p = s;
        n->n_subscribers++;
    }
    if (s->n >= n->cfg.queue_per_subscriber) { /* the oldest waiting one goes */
        drop(n, take_oldest(s), DROP_QUEUE_FULL, "the subscriber's queue is full");
    }
    it->next = NULL;
    BSF_FIFO_APPEND(s->head, s->tail, it, next);
    s->n++;
    atomic_fetch_add(&n->waiting, 1);
    if (!s->in_flight)
        send_next(s);
}

static void drain(void *arg, bool stopped)
{
    bsf_notifier_t *n = arg;
    pthread_mutex_lock(&n->mu);
    bsf_notify_item_t *items = n->inbox_head;
    n->inbox_head = n->inbox_tail = NULL;
    n->inbox_n = 0;
    atomic_store(&n->handoff, 0);
    n->posted = false;
    pthread_mutex_unlock(&n->mu);
    while (items) {
        bsf_notify_item_t *next = items->next;
        if (stopped)
            drop(n, items, DROP_STOPPED, NULL);
        else
            enqueue(n, items);
        items = next;
    }
}

/* ---- the engine thread ------------------------------------------------------------- */

/* Under n->mu: asks the client thread to drain the inbox, once. */
static void post_drain_locked(bsf_notifier_t *n)
{
    if (n->posted || !n->client || !n->inbox_head)
        return;
    n->posted = bsf_sbi_client_post(n->client, 0, drain, n) == 0;
}

void bsf_notifier_deliver(void *ctx, bsf_notify_item_t *items)
{
    bsf_notifier_t *n = ctx;
    size_t count = 0;
    bsf_notify_item_t *last = items;
    for (bsf_notify_item_t *it = items; it; it = it->next, count++)
        last = it;
    if (!count)
        return;
    atomic_fetch_add(&n->queued, count);
    bsf_notify_item_t *over = NULL, **over_tail = &over;
    pthread_mutex_lock(&n->mu);
    BSF_FIFO_APPEND_CHAIN(n->inbox_head, n->inbox_tail, items, last, next);
    n->inbox_n += count;
    while (n->inbox_n > n->cfg.handoff_max) { /* the oldest go, as in a subscriber's queue */
        bsf_notify_item_t *old = n->inbox_head;
        n->inbox_head = old->next;
        n->inbox_n--;
        *over_tail = old;
        over_tail = &old->next;
    }
    *over_tail = NULL;
    if (!n->inbox_head)
        n->inbox_tail = NULL;
    atomic_store(&n->handoff, n->inbox_n);
    post_drain_locked(n);
    pthread_mutex_unlock(&n->mu);
    while (over) { /* logged outside the lock */
        bsf_notify_item_t *next = over->next;
        drop(n, over, DROP_HANDOFF_FULL, "the hand-off to the SBI client is full");
        over = next;
    }
}

void bsf_notifier_set_client(bsf_notifier_t *n, bsf_sbi_client_t *client)
{
    pthread_mutex_lock(&n->mu);
    n->client = client;
    post_drain_locked(n);
    pthread_mutex_unlock(&n->mu);
}

/* ---- metrics and end --------------------------------------------------------------- */

void bsf_notifier_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_notifier_t *n = ctx;
    const bsf_metric_row_t rows[] = {
        {"bsf_notifications_total", "counter",
         "Notifications made (committed binding events for this site's subscriptions).",
         atomic_load(&n->queued)},
        {"bsf_notifications_sent_total", "counter", "Notifications answered 2xx.",
         atomic_load(&n->sent)},
        {"bsf_notification_attempts_total", "counter",
         "Notification requests sent, retries and redirects included.",
         atomic_load(&n->attempts)},
        {"bsf_notifications_waiting", "gauge", "Notifications queued, not yet sent.",
         atomic_load(&n->waiting)},
        {"bsf_notifications_handoff", "gauge",
         "Notifications committed and not yet taken by the SBI client's thread (at most "
         "notify.handoff_max).",
         atomic_load(&n->handoff)},
    };
    BSF_METRICS_ROWS(out, rows);
    uint64_t dropped[DROP_COUNT];
    for (int i = 0; i < DROP_COUNT; i++)
        dropped[i] = atomic_load(&n->dropped[i]);
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_notifications_dropped_total", "counter",
                                "Notifications given up, by reason.", "reason", drop_names,
                                dropped);
    double bounds[DELAY_BUCKETS];
    uint64_t counts[DELAY_BUCKETS + 1], count = 0;
    for (size_t b = 0; b <= DELAY_BUCKETS; b++) {
        if (b < DELAY_BUCKETS)
            bounds[b] = delay_bounds_ms[b] / 1000.0;
        counts[b] = atomic_load(&n->delay[b]);
        count += counts[b];
    }
    bsf_metrics_family(out, "bsf_notification_delay_seconds", "histogram",
                       "From the commit of the binding event to the receiver's 2xx.");
    bsf_metrics_histogram(out, &(bsf_metrics_histogram_t){
                                   .name = "bsf_notification_delay_seconds", .bounds = bounds,
                                   .n_bounds = DELAY_BUCKETS, .counts = counts,
                                   .sum = (double)atomic_load(&n->delay_sum_us) / 1e6,
                                   .sum_decimals = 6, .count = count});
}

void bsf_notifier_destroy(bsf_notifier_t *n)
{
    if (!n)
        return;
    bsf_notify_items_free(n->inbox_head);
    for (size_t b = 0; b < BUCKETS; b++)
        while (n->buckets[b]) {
            subscriber_t *s = n->buckets[b];
            n->buckets[b] = s->next;
            bsf_notify_items_free(s->head);
            free(s->in_flight);
            free(s);
        }
    msgpack_zone_destroy(&n->zone);
    msgpack_sbuffer_destroy(&n->json);
    pthread_mutex_destroy(&n->mu);
    free(n);
}
