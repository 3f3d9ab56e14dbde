#include "replication/applier.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/deadline.h"
#include "common/error.h"
#include "common/clock.h"
#include "common/diag.h"
#include "common/worker_thread.h"
#include "core/event.h"
#include "core/hlc.h"
#include "replication/kafka_reader.h"

/* One apply command in the making or queued at the engine, with the messages its events
 * point into. */
typedef struct slot {
    bsf_applier_t *a;
    bsf_command_t *cmd;
    bsf_apply_batch_t batch;
    bsf_apply_event_t *events;
    bsf_pcf_binding_t *bindings;
    rd_kafka_message_t **msgs;
    size_t n_msgs;
    int64_t from[BSF_KAFKA_READER_MAX_TOPICS]; /* first position of each topic; -1 none */
    bsf_apply_position_t positions[BSF_KAFKA_READER_MAX_TOPICS];
    bool busy;
    struct slot *next_done;
} slot_t;

struct bsf_applier {
    bsf_replication_settings_t cfg;
    uint16_t site;
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_kafka_reader_t *reader;
    size_t n_topics;
    char sources[BSF_KAFKA_READER_MAX_TOPICS][BSF_APPLY_SOURCE_MAX];

    size_t n_slots;
    slot_t *slots;

    /* applier thread only */
    uint64_t next[BSF_KAFKA_READER_MAX_TOPICS]; /* offset after the last message taken */
    size_t inflight;
    bool resync;
    uint64_t own_seq; /* a lower bound of the store's own sequence number */
    uint64_t positions_due_ns;
    /* start-up catch-up: the position each topic had when it first reached its end */
    bool end_seen[BSF_KAFKA_READER_MAX_TOPICS];
    uint64_t target[BSF_KAFKA_READER_MAX_TOPICS];
    uint64_t resync_at_ns, next_warn_ns;
    /* topics held at an event of a newer version; the hold last logged (offset + 1) */
    bool held[BSF_KAFKA_READER_MAX_TOPICS];
    uint64_t hold_logged[BSF_KAFKA_READER_MAX_TOPICS];

    bsf_worker_t worker; /* its stop flag is set under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* under mu */
    slot_t *done;
    bsf_applier_stats_t stats;
};

/* ---- slots -------------------------------------------------------------------------------- */

static void slot_release(slot_t *s)
{
    for (size_t i = 0; i < s->n_msgs; i++)
        rd_kafka_message_destroy(s->msgs[i]);
    s->n_msgs = 0;
    s->batch.n_events = 0;
    s->batch.n_positions = 0;
    for (size_t t = 0; t < BSF_KAFKA_READER_MAX_TOPICS; t++)
        s->from[t] = -1;
    msgpack_zone_clear(&s->cmd->zone);
}

static bool slot_empty(const slot_t *s, size_t n_topics)
{
    for (size_t t = 0; t < n_topics; t++)
        if (s->from[t] >= 0)
            return false;
    return true;
}

/* Engine thread: the command is done. */
static void on_done(bsf_command_t *cmd)
{
    slot_t *s = cmd->owner;
    bsf_applier_t *a = s->a;
    pthread_mutex_lock(&a->mu);
    s->next_done = a->done;
    a->done = s;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

static slot_t *free_slot(bsf_applier_t *a)
{
    for (size_t i = 0; i < a->n_slots; i++)
        if (!a->slots[i].busy)
            return &a->slots[i];
    return NULL;
}

/* ---- statistics ----------------------------------------------------------------------------- */

static bsf_applier_site_t *site_stats(bsf_applier_stats_t *st, uint16_t site)
{
    for (size_t i = 0; i < st->n_sites; i++)
        if (st->sites[i].site == site)
            return &st->sites[i];
    if (st->n_sites == BSF_APPLIER_MAX_SITES)
        return NULL;
    bsf_applier_site_t *s = &st->sites[st->n_sites++];
    memset(s, 0, sizeof *s);
    s->site = site;
    return s;
}

/* Under mu: the outcome of a finished command. */
static void account(bsf_applier_t *a, slot_t *s)
{
    static const unsigned bounds[BSF_APPLIER_DELAY_BUCKETS] = BSF_APPLIER_DELAY_BUCKETS_MS;
    bsf_applier_stats_t *st = &a->stats;
    uint64_t now = bsf_clock_wall_ms();
    st->commands++;
    st->applied += s->batch.applied;
    st->skipped += s->batch.skipped;
    st->replaced += s->batch.replaced;
    st->replace_held += s->batch.replace_held;
    for (size_t i = 0; i < s->batch.n_positions; i++) {
        size_t t = 0;
        while (t < a->n_topics && strcmp(a->sources[t], s->positions[i].source) != 0)
            t++;
        if (t < a->n_topics && s->positions[i].to > st->topics[t].position)
            st->topics[t].position = s->positions[i].to;
    }
    for (size_t i = 0; i < s->batch.n_events; i++) {
        const bsf_apply_event_t *e = &s->events[i];
        if (!e->applied)
            continue;
        bsf_applier_site_t *ss = site_stats(st, e->ev.site);
        if (ss) {
            ss->applied++;
            if (e->ev.hlc > ss->last_hlc)
                ss->last_hlc = e->ev.hlc;
        }
        uint64_t at = BSF_HLC_MS(e->ev.hlc);
        uint64_t delay = now > at ? now - at : 0;
        size_t b = 0;
        while (bounds[b] && delay > bounds[b])
            b++;
        st->delay_buckets[b]++;
        st->delay_count++;
        st->delay_sum_ms += delay;
    }
}

static void handle_completions(bsf_applier_t *a)
{
    pthread_mutex_lock(&a->mu);
    slot_t *list = a->done;
    a->done = NULL;
    for (slot_t *s = list; s; s = s->next_done) {
        if (s->cmd->status == BSF_CMD_OK) {
            account(a, s);
        } else {
            a->stats.refused++;
            a->resync = true;
            uint64_t now = bsf_clock_mono_ns();
            if (!s->batch.gap && now >= a->next_warn_ns) {
                a->next_warn_ns = now + 10000000000u;
                BSF_WARN("replication", "applying replicated events failed: %s (reading again "
                         "from the stored positions)", s->cmd->problem.detail);
            }
            /* A failure of the store: give it a moment; a gap only needs a re-read. */
            if (!s->batch.gap)
                a->resync_at_ns = now + 500000000u;
        }
    }
    pthread_mutex_unlock(&a->mu);
    for (slot_t *s = list, *next; s; s = next) {
        next = s->next_done;
        slot_release(s);
        s->busy = false;
        a->inflight--;
    }
}

static void update_topics(bsf_applier_t *a, const slot_t *fill)
{
    pthread_mutex_lock(&a->mu);
    /* A batch holding only positions (no events) does not keep a site from being current. */
    bool end = bsf_kafka_reader_at_end(a->reader) && a->inflight == 0 && !a->resync &&
               (!fill || fill->batch.n_events == 0);
    bool reached = true;
    for (size_t t = 0; t < a->n_topics; t++) {
        if (!a->end_seen[t] && bsf_kafka_reader_topic_at_end(a->reader, t)) {
            a->end_seen[t] = true;
            a->target[t] = a->next[t];
        }
        reached = reached && a->end_seen[t] &&
                  (a->stats.topics[t].position >= a->target[t] || a->held[t]);
    }
    if (reached && !a->stats.reached_end) {
        a->stats.reached_end = true;
        pthread_cond_broadcast(&a->cv);
    }
    for (size_t t = 0; t < a->n_topics; t++) {
        a->stats.topics[t].high = bsf_kafka_reader_high_watermark(a->reader, t);
        a->stats.topics[t].at_end = bsf_kafka_reader_topic_at_end(a->reader, t) &&
                                    a->inflight == 0 && !a->held[t] &&
                                    (!fill || fill->from[t] < 0 || fill->batch.n_events == 0);
    }
    for (size_t t = 0; t < a->n_topics; t++)
        end = end && !a->held[t];
    if (end != a->stats.caught_up) {
        a->stats.caught_up = end;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
}

/* ---- reading ------------------------------------------------------------------------------ */

static int assign_from_store(bsf_applier_t *a, char *err, size_t err_cap)
{
    MDB_txn *txn;
    int64_t offsets[BSF_KAFKA_READER_MAX_TOPICS];
    int rc = mdb_txn_begin(a->store->env, NULL, MDB_RDONLY, &txn);
    for (size_t t = 0; !rc && t < a->n_topics; t++) {
        uint64_t pos;
        rc = bsf_store_load_position(a->store, txn, a->sources[t], &pos);
        a->next[t] = pos;
        a->held[t] = false; /* held again when the event is read again */
        offsets[t] = pos ? (int64_t)pos : BSF_KAFKA_FROM_BEGINNING;
        pthread_mutex_lock(&a->mu);
        a->stats.topics[t].position = pos;
        pthread_mutex_unlock(&a->mu);
    }
    if (!rc)
        mdb_txn_abort(txn);
    if (rc) {
        snprintf(err, err_cap, "cannot read the consumer positions: %s", bsf_strerror(rc));
        return -1;
    }
    return bsf_kafka_reader_assign(a->reader, offsets, err, err_cap);
}

static void consumer_error(bsf_applier_t *a, rd_kafka_message_t *m)
{
    uint64_t now = bsf_clock_mono_ns();
    bool serious = m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
                   m->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                   m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                   m->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
    pthread_mutex_lock(&a->mu);
    a->stats.consumer_errors++;
    bool warn = now >= a->next_warn_ns;
    if (warn)
        a->next_warn_ns = now + 10000000000u;
    pthread_mutex_unlock(&a->mu);
    if (warn)
        BSF_WARN("replication", "reading %s: %s%s",
                 m->rkt ? rd_kafka_topic_name(m->rkt) : "the log", rd_kafka_message_errstr(m),
                 m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET
                     ? " (the stored position is no longer in the topic: events were deleted "
                       "before this site applied them; bootstrap the site again)"
                     : "");
    if (serious) {
        /* Read again from the stored positions a little later. */
        a->resync = true;
        a->resync_at_ns = now + 2000000000u;
    }
}

static bool header_u64(rd_kafka_headers_t *h, const char *name, uint64_t *out)
{
    const void *v;
    size_t n;
    char text[24];
    if (rd_kafka_header_get_last(h, name, &v, &n) || !v || n == 0 || n >= sizeof text)
        return false;
    memcpy(text, v, n);
    text[n] = '\0';
    char *end;
    *out = strtoull(text, &end, 10);
    return *end == '\0';
}

/* This site's own event that its store already holds (the usual case: every site consumes
 * its own topic only to bootstrap from it). Judged from the message's headers, without
 * decoding the event; without them the engine decides. */
static bool own_and_present(bsf_applier_t *a, rd_kafka_message_t *m)
{
    rd_kafka_headers_t *h;
    uint64_t site, seq;
    if (rd_kafka_message_headers(m, &h) || !header_u64(h, "site", &site) || site != a->site ||
        !header_u64(h, "seq", &seq))
        return false;
    if (seq > a->own_seq) {
        bsf_engine_stats_t st;
        bsf_engine_stats(a->engine, &st);
        a->own_seq = st.own_seq;
    }
    return seq <= a->own_seq;
}

/* True when the message holds an event of a version newer than this build reads: its topic
 * is held from there (nothing of it applied, its position not moved past it) and logged once
 * per hold. */
static bool held_back(bsf_applier_t *a, size_t t, const rd_kafka_message_t *m)
{
    uint64_t version;
    if (!m->payload || bsf_event_peek_version(m->payload, m->len, &version) ||
        version <= bsf_event_newest_read())
        return false;
    a->held[t] = true;
    pthread_mutex_lock(&a->mu);
    a->stats.topics[t].held_version = version;
    a->stats.topics[t].held_offset = (uint64_t)m->offset;
    pthread_mutex_unlock(&a->mu);
    if (a->hold_logged[t] != (uint64_t)m->offset + 1) {
        a->hold_logged[t] = (uint64_t)m->offset + 1;
        BSF_WARN("replication", "%s offset %" PRId64 ": an event of version %" PRIu64
                 " (this release reads versions %d to %u); the topic is held there, its "
                 "events not applied, until a release that reads it starts (the other "
                 "topics keep applying)",
                 bsf_kafka_reader_topic(a->reader, t), m->offset, version,
                 BSF_EVENT_VERSION_OLDEST, bsf_event_newest_read());
    }
    return true;
}

/* Adds a message to the batch: its event (decoded into the command's zone), or only its
 * position when it holds no readable event or one the store already has. */
static void take(bsf_applier_t *a, slot_t *s, rd_kafka_message_t *m)
{
    size_t t = bsf_kafka_reader_topic_index(a->reader, m);
    if (a->held[t]) {
        rd_kafka_message_destroy(m); /* read again from the stored position after a restart */
        return;
    }
    bool own = own_and_present(a, m); /* in the store already, whatever its version */
    if (!own && held_back(a, t, m)) {
        rd_kafka_message_destroy(m);
        return;
    }
    if (s->from[t] < 0)
        s->from[t] = (int64_t)a->next[t];
    a->next[t] = (uint64_t)m->offset + 1;
    if (own) {
        pthread_mutex_lock(&a->mu);
        a->stats.skipped++;
        pthread_mutex_unlock(&a->mu);
        rd_kafka_message_destroy(m);
        return;
    }
    bsf_apply_event_t *e = &s->events[s->batch.n_events];
    char err[256];
    if (!m->payload ||
        bsf_event_decode(m->payload, m->len, &s->cmd->zone, &e->ev,
                         &s->bindings[s->batch.n_events], err, sizeof err)) {
        pthread_mutex_lock(&a->mu);
        a->stats.bad_events++;
        pthread_mutex_unlock(&a->mu);
        BSF_ERROR("replication", "%s offset %" PRId64 ": not an event (%s); skipped",
                  bsf_kafka_reader_topic(a->reader, t), m->offset,
                  m->payload ? err : "no value");
        rd_kafka_message_destroy(m);
        return;
    }
    e->raw = m->payload;
    e->len = m->len;
    e->applied = false;
    s->batch.n_events++;
    s->msgs[s->n_msgs++] = m;
    pthread_mutex_lock(&a->mu);
    bsf_applier_site_t *ss = site_stats(&a->stats, e->ev.site);
    if (ss)
        ss->topic = t;
    pthread_mutex_unlock(&a->mu);
}

/* Hands the batch to the engine. Returns 0, or -1 when the engine does not take it now. */
static int submit(bsf_applier_t *a, slot_t *s)
{
    s->batch.events = s->events;
    s->batch.positions = s->positions;
    s->batch.n_positions = 0;
    for (size_t t = 0; t < a->n_topics; t++) {
        if (s->from[t] < 0)
            continue;
        bsf_apply_position_t *p = &s->positions[s->batch.n_positions++];
        memcpy(p->source, a->sources[t], sizeof p->source);
        p->from = (uint64_t)s->from[t];
        p->to = a->next[t];
    }
    s->cmd->apply = &s->batch;
    s->cmd->owner = s;
    s->cmd->done = on_done;
    if (bsf_engine_submit(a->engine, s->cmd))
        return -1;
    s->busy = true;
    a->inflight++;
    return 0;
}

static void wait_signal(bsf_applier_t *a, int ms)
{
    struct timespec until = bsf_deadline_after_ms((uint64_t)ms);
    pthread_mutex_lock(&a->mu);
    if (!a->done && !bsf_worker_stopping(&a->worker))
        bsf_cond_wait_until(&a->cv, &a->mu, &until);
    pthread_mutex_unlock(&a->mu);
}

static void *applier_main(void *arg)
{
    bsf_applier_t *a = arg;
    slot_t *fill = NULL;
    uint64_t next_update = 0;
    while (!bsf_worker_stopping(&a->worker)) {
        handle_completions(a);
        if (a->resync) {
            if (fill) {
                slot_release(fill);
                fill = NULL;
            }
            if (a->inflight || bsf_clock_mono_ns() < a->resync_at_ns) {
                wait_signal(a, 50);
                continue;
            }
            char err[512];
            if (assign_from_store(a, err, sizeof err)) {
                BSF_WARN("replication", "%s", err);
                a->resync_at_ns = bsf_clock_mono_ns() + 1000000000u;
                continue;
            }
            a->resync = false;
        }
        if (!fill) {
            if (!(fill = free_slot(a))) {
                wait_signal(a, 100);
                continue;
            }
            slot_release(fill);
        }
        bool pending = !slot_empty(fill, a->n_topics);
        bool full = fill->batch.n_events >= a->cfg.apply_batch;
        /* Wait for messages unless a batch with events is ready to go. */
        int wait_ms = pending && fill->batch.n_events ? 0 : 100;
        rd_kafka_message_t *m = full ? NULL : bsf_kafka_reader_next(a->reader, wait_ms);
        if (m && m->err) {
            consumer_error(a, m);
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m)
            take(a, fill, m);
        uint64_t now = bsf_clock_mono_ns();
        /* A batch of positions only (this site's own events, already in the store) is not
         * worth a transaction of its own every time: at most once a second once caught up. */
        bool events = fill->batch.n_events > 0;
        bool due = events || !a->stats.reached_end || now >= a->positions_due_ns;
        if ((!m && pending && due) || fill->batch.n_events >= a->cfg.apply_batch) {
            if (submit(a, fill) == 0) {
                fill = NULL;
                if (!events)
                    a->positions_due_ns = now + 1000000000u;
            } else {
                wait_signal(a, 20); /* the engine's queue is full or it is stopping */
            }
        }
        if (!m || now >= next_update) {
            update_topics(a, fill);
            next_update = now + 100000000u;
        }
    }
    if (fill)
        slot_release(fill);
    /* The engine has stopped: every queued command is done. */
    while (a->inflight) {
        handle_completions(a);
        if (a->inflight)
            wait_signal(a, 50);
    }
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int bsf_applier_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                       bsf_store_t *store, bsf_applier_t **out, char *err, size_t err_cap)
{
    bsf_applier_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    a->cfg = *settings;
    a->site = site_id;
    a->store = store;
    pthread_mutex_init(&a->mu, NULL);
    bsf_cond_init_monotonic(&a->cv);
    const char *topics[BSF_KAFKA_READER_MAX_TOPICS];
    char names[BSF_KAFKA_READER_MAX_TOPICS][BSF_KAFKA_TOPIC_MAX + 1];
    const char *p = settings->consume_topics;
    while (*p && a->n_topics < BSF_KAFKA_READER_MAX_TOPICS) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && n <= BSF_KAFKA_TOPIC_MAX) {
            snprintf(names[a->n_topics], sizeof names[0], "%.*s", (int)n, p);
            topics[a->n_topics] = names[a->n_topics];
            snprintf(a->sources[a->n_topics], sizeof a->sources[0], "kafka/%s/0",
                     names[a->n_topics]);
            a->n_topics++;
        }
        p += n + (nl ? 1 : 0);
    }
    a->stats.n_topics = a->n_topics;
    char client_id[160];
    snprintf(client_id, sizeof client_id, "bsf-site-%u-applier", (unsigned)site_id);
    if (!a->n_topics ||
        bsf_kafka_reader_new(settings->brokers, settings->client_properties, client_id, topics,
                             a->n_topics, &a->reader, err, err_cap)) {
        if (!a->n_topics)
            snprintf(err, err_cap, "no topic to consume");
        bsf_applier_destroy(a);
        return -1;
    }
    a->n_slots = settings->apply_inflight + 1;
    a->slots = calloc(a->n_slots, sizeof *a->slots);
    for (size_t i = 0; a->slots && i < a->n_slots; i++) {
        slot_t *s = &a->slots[i];
        s->a = a;
        s->cmd = bsf_command_new(BSF_CMD_APPLY);
        s->events = calloc(settings->apply_batch, sizeof *s->events);
        s->bindings = calloc(settings->apply_batch, sizeof *s->bindings);
        s->msgs = calloc(settings->apply_batch, sizeof *s->msgs);
        if (!s->cmd || !s->events || !s->bindings || !s->msgs) {
            a->n_slots = i + 1;
            bsf_applier_destroy(a);
            snprintf(err, err_cap, "out of memory");
            return -1;
        }
        slot_release(s);
    }
    if (!a->slots) {
        a->n_slots = 0;
        bsf_applier_destroy(a);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    *out = a;
    return 0;
}

int bsf_applier_start(bsf_applier_t *a, bsf_engine_t *engine, char *err, size_t err_cap)
{
    a->engine = engine;
    if (assign_from_store(a, err, err_cap))
        return -1;
    int rc = bsf_worker_start(&a->worker, applier_main, a, NULL);
    if (rc) {
        snprintf(err, err_cap, "cannot start the applier: %s", bsf_strerror(rc));
        return -1;
    }
    return 0;
}

bool bsf_applier_wait_caught_up(bsf_applier_t *a, int timeout_ms)
{
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)timeout_ms * 1000000u;
    pthread_mutex_lock(&a->mu);
    while (!a->stats.reached_end && bsf_clock_mono_ns() < deadline) {
        bsf_cond_wait_ms(&a->cv, &a->mu, 50);
    }
    bool ok = a->stats.reached_end;
    pthread_mutex_unlock(&a->mu);
    return ok;
}

void bsf_applier_stop(bsf_applier_t *a)
{
    if (a)
        bsf_worker_stop(&a->worker, &a->mu, &a->cv);
}

void bsf_applier_destroy(bsf_applier_t *a)
{
    if (!a)
        return;
    bsf_applier_stop(a);
    for (size_t i = 0; i < a->n_slots; i++) {
        slot_t *s = &a->slots[i];
        if (s->cmd && s->msgs)
            slot_release(s);
        bsf_command_free(s->cmd);
        free(s->events);
        free(s->bindings);
        free(s->msgs);
    }
    free(a->slots);
    bsf_kafka_reader_free(a->reader);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}

void bsf_applier_stats(bsf_applier_t *a, bsf_applier_stats_t *out)
{
    pthread_mutex_lock(&a->mu);
    *out = a->stats;
    pthread_mutex_unlock(&a->mu);
}

const char *bsf_applier_topic(const bsf_applier_t *a, size_t topic)
{
    return bsf_kafka_reader_topic(a->reader, topic);
}
