#include "replication/shipper.h"

#include <errno.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
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
#include "core/bytes.h"
#include "core/hlc.h"
#include "replication/kafka_conf.h"
#include "replication/kafka_reader.h"

#define HINT_LEN 24
#define CONNECT_TIMEOUT_MS 10000
#define BACKOFF_MIN_MS 200
#define BACKOFF_MAX_MS 5000


typedef enum { SHIP_OK, SHIP_ABORTED, SHIP_BROKEN } ship_outcome_t;

/* One producer (a new one after each fatal error) and the delivery reports of its running
 * transaction, read by the thread that owns it. */
typedef struct {
    rd_kafka_t *rk;
    size_t dr_pending;
    rd_kafka_resp_err_t dr_err;
    int64_t dr_offset;
} producer_t;

/* The connection to Kafka, one state at a time (shipper.h, "State"). `producer` is NULL in
 * DISCONNECTED and CONNECTING. The transitions are the conn_* functions below. */
typedef enum {
    CONN_DISCONNECTED, /* no producer; the thread connects once now >= retry_at_ns */
    CONN_CONNECTING,   /* the thread (or bsf_shipper_start) is connecting, mu released */
    CONN_READY,        /* replicated: connected, not yet taken by the engine thread */
    CONN_CONNECTED,    /* `producer` is used by its owner: the thread (local) or the engine
                          thread (replicated), outside mu */
    CONN_BROKEN,       /* replicated: the engine thread gave the producer up; the thread
                          destroys it */
} conn_state_t;

struct bsf_shipper {
    /* Set at create/start, read-only afterwards. */
    bsf_replication_settings_t cfg;
    uint16_t site;
    bsf_store_t *store;
    bsf_engine_t *engine;
    bool replicated;
    char hint_name[BSF_KAFKA_TOPIC_MAX + 16];
    bsf_worker_t worker; /* its stop flag is set under mu */

    /* mu guards every field below. */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* wakes the thread: a commit (local), a broken producer, stop */

    conn_state_t conn;
    producer_t *producer;

    /* What is shipped. */
    uint64_t scan_pos;       /* this site's events at log positions <= scan_pos are shipped */
    uint64_t shipped_seq;    /* highest sequence number of this site in Kafka */
    int64_t shipped_offset;  /* its Kafka offset; -1 unknown */
    uint64_t pending_scan_pos; /* replicated: becomes scan_pos once the local commit is done */
    bool pending;

    /* The position hint in meta: to be written (dirty), written in the engine's running
     * transaction (in_txn). Both can hold: a second write in the same transaction failed. */
    bool hint_dirty, hint_in_txn;

    /* The thread's schedule. */
    bool notified;        /* there may be events to ship (local) / look at the connection */
    uint64_t retry_at_ns; /* no connect (or, local, no shipping after a failure) before */
    uint64_t next_txn_ns; /* durability=local: no transaction starts before */
    unsigned backoff_ms;  /* of the next failed connect; 0 after a success */
    uint64_t next_warn_ns;
    bsf_shipper_stats_t stats;
};

/* ---- connection state: the transitions (all under mu) ------------------------------------- */

/* DISCONNECTED -> CONNECTING. */
static void conn_connecting(bsf_shipper_t *s)
{
    s->conn = CONN_CONNECTING;
}

/* CONNECTING -> DISCONNECTED, the next attempt after a doubling backoff. */
static void conn_failed(bsf_shipper_t *s, uint64_t now)
{
    s->conn = CONN_DISCONNECTED;
    s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (s->backoff_ms > BACKOFF_MAX_MS)
        s->backoff_ms = BACKOFF_MAX_MS;
    s->retry_at_ns = now + (uint64_t)s->backoff_ms * 1000000u;
}

/* CONNECTING -> READY (replicated: for the engine thread to take) or CONNECTED (local). */
static void conn_established(bsf_shipper_t *s, producer_t *p)
{
    s->producer = p;
    s->conn = s->replicated ? CONN_READY : CONN_CONNECTED;
    s->backoff_ms = 0;
    s->next_warn_ns = 0;
    s->stats.connected = true;
    s->notified = true;
}

/* READY -> CONNECTED (engine thread, replicated). The producer to ship with, or NULL when
 * there is none. */
static producer_t *conn_take(bsf_shipper_t *s)
{
    if (s->conn == CONN_READY)
        s->conn = CONN_CONNECTED;
    return s->conn == CONN_CONNECTED ? s->producer : NULL;
}

/* CONNECTED -> BROKEN (engine thread, replicated): the thread destroys the producer and
 * reconnects at once. */
static void conn_broken(bsf_shipper_t *s)
{
    s->conn = CONN_BROKEN;
    s->stats.connected = false;
    s->retry_at_ns = 0;
    pthread_cond_signal(&s->cv);
}

/* CONNECTED (local) or BROKEN -> DISCONNECTED. Returns the producer for the caller to
 * destroy outside mu. `retry_at_ns` is the next connect's. */
static producer_t *conn_release(bsf_shipper_t *s, uint64_t retry_at_ns)
{
    producer_t *p = s->producer;
    s->producer = NULL;
    s->conn = CONN_DISCONNECTED;
    s->stats.connected = false;
    s->retry_at_ns = retry_at_ns;
    return p;
}

/* ---- the position hint ---------------------------------------------------------------- */

/* Writes the hint into the caller's write transaction (under mu). */
static int write_hint(bsf_shipper_t *s, MDB_txn *txn, uint64_t scan_pos)
{
    uint8_t v[HINT_LEN];
    bsf_put_be64(v, scan_pos);
    bsf_put_be64(v + 8, s->shipped_seq);
    bsf_put_be64(v + 16, (uint64_t)s->shipped_offset);
    return bsf_store_put_meta(s->store, txn, s->hint_name, v, sizeof v);
}

static int read_hint(bsf_shipper_t *s, char *err, size_t err_cap)
{
    MDB_txn *txn;
    uint8_t v[HINT_LEN];
    size_t len = 0;
    int rc = mdb_txn_begin(s->store->env, NULL, MDB_RDONLY, &txn);
    if (!rc) {
        rc = bsf_store_get_meta(s->store, txn, s->hint_name, v, sizeof v, &len);
        mdb_txn_abort(txn);
    }
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc || len != HINT_LEN) {
        snprintf(err, err_cap, "cannot read the shipper's position hint: %s",
                 rc ? bsf_strerror(rc) : "bad length");
        return -1;
    }
    s->scan_pos = bsf_get_be64(v);
    s->shipped_seq = bsf_get_be64(v + 8);
    s->shipped_offset = (int64_t)bsf_get_be64(v + 16);
    return 0;
}

/* ---- producers ------------------------------------------------------------------------- */

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    producer_t *p = opaque;
    if (p->dr_pending)
        p->dr_pending--;
    if (m->err) {
        if (!p->dr_err)
            p->dr_err = m->err;
    } else if (m->offset > p->dr_offset) {
        p->dr_offset = m->offset;
    }
}

static void producer_free(producer_t *p)
{
    if (!p)
        return;
    if (p->rk) {
        rd_kafka_purge(p->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_destroy(p->rk);
    }
    free(p);
}

static producer_t *producer_new(bsf_shipper_t *s, char *err, size_t err_cap)
{
    char client_id[160], num[32];
    snprintf(client_id, sizeof client_id, "bsf-site-%u-shipper", (unsigned)s->site);
    static const char *const defaults[] = {"compression.codec", "zstd", "retry.backoff.ms", "10",
                                           NULL};
    rd_kafka_conf_t *conf = bsf_kafka_conf_new(s->cfg.brokers, s->cfg.client_properties,
                                               client_id, defaults, err, err_cap);
    if (!conf)
        return NULL;
    unsigned queue = s->cfg.ship_batch * 2 > 100000 ? s->cfg.ship_batch * 2 : 100000;
    int bad = bsf_kafka_conf_set(conf, "transactional.id", s->cfg.transactional_id, err, err_cap) ||
              bsf_kafka_conf_set(conf, "enable.idempotence", "true", err, err_cap) ||
              bsf_kafka_conf_set(conf, "acks", "all", err, err_cap);
    snprintf(num, sizeof num, "%u", s->cfg.linger_ms);
    bad = bad || bsf_kafka_conf_set(conf, "linger.ms", num, err, err_cap);
    snprintf(num, sizeof num, "%u", s->cfg.transaction_timeout_ms);
    bad = bad || bsf_kafka_conf_set(conf, "transaction.timeout.ms", num, err, err_cap) ||
          bsf_kafka_conf_set(conf, "message.timeout.ms", num, err, err_cap);
    snprintf(num, sizeof num, "%u", queue);
    bad = bad || bsf_kafka_conf_set(conf, "queue.buffering.max.messages", num, err, err_cap);
    producer_t *p = bad ? NULL : calloc(1, sizeof *p);
    if (!p) {
        if (!bad)
            snprintf(err, err_cap, "out of memory");
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    p->dr_offset = -1;
    rd_kafka_conf_set_opaque(conf, p);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    char why[512];
    if (!(p->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why))) {
        rd_kafka_conf_destroy(conf);
        free(p);
        snprintf(err, err_cap, "cannot create the Kafka producer: %s", why);
        return NULL;
    }
    return p;
}

/* Reads this site's topic from `from_offset` (or the beginning) to its end: the highest
 * sequence number of this site's events and the offset holding it. */
static int read_tail(bsf_shipper_t *s, int64_t from_offset, int timeout_ms, uint64_t *seq,
                     int64_t *offset, char *err, size_t err_cap)
{
    char client_id[160];
    snprintf(client_id, sizeof client_id, "bsf-site-%u-tail", (unsigned)s->site);
    const char *topics[1] = {s->cfg.topic};
    bsf_kafka_reader_t *r;
    if (bsf_kafka_reader_new(s->cfg.brokers, s->cfg.client_properties, client_id, topics, 1, &r,
                             err, err_cap))
        return -1;
    int64_t start = from_offset >= 0 ? from_offset : BSF_KAFKA_FROM_BEGINNING;
    int rc = bsf_kafka_reader_assign(r, &start, err, err_cap);
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)timeout_ms * 1000000u;
    bool rewound = false;
    *seq = 0;
    *offset = -1;
    while (!rc && !bsf_kafka_reader_at_end(r)) {
        if (bsf_clock_mono_ns() > deadline) {
            snprintf(err, err_cap, "reading the tail of topic %s: no end within %d ms",
                     s->cfg.topic, timeout_ms);
            rc = -1;
            break;
        }
        rd_kafka_message_t *m = bsf_kafka_reader_next(r, 100);
        if (!m)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET && !rewound) {
            /* The hint points beyond the topic (recreated?): read it all. */
            rewound = true;
            start = BSF_KAFKA_FROM_BEGINNING;
            rc = bsf_kafka_reader_assign(r, &start, err, err_cap);
        } else if (m->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                   m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                   m->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
                   m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
            snprintf(err, err_cap, "reading topic %s: %s", s->cfg.topic,
                     rd_kafka_message_errstr(m));
            rc = -1;
        } else if (!m->err) {
            bsf_event_t ev;
            if (bsf_event_decode_envelope(m->payload, m->len, &ev) == 0 && ev.site == s->site &&
                ev.seq > *seq) {
                *seq = ev.seq;
                *offset = m->offset;
            }
        }
        rd_kafka_message_destroy(m);
    }
    bsf_kafka_reader_free(r);
    return rc;
}

/* A producer ready to ship: transactions initialised (which fences and aborts whatever an
 * earlier producer with the same transactional id left open), and the topic's tail read. */
static producer_t *connect_producer(bsf_shipper_t *s, int64_t from_offset, int timeout_ms,
                                    uint64_t *kafka_seq, int64_t *kafka_offset, char *err,
                                    size_t err_cap)
{
    uint64_t t0 = bsf_clock_mono_ns();
    producer_t *p = producer_new(s, err, err_cap);
    if (!p)
        return NULL;
    rd_kafka_error_t *e = rd_kafka_init_transactions(p->rk, timeout_ms);
    if (e) {
        snprintf(err, err_cap, "initialising Kafka transactions: %s", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        producer_free(p);
        return NULL;
    }
    int left = timeout_ms - (int)((bsf_clock_mono_ns() - t0) / 1000000u);
    if (read_tail(s, from_offset, left > 1000 ? left : 1000, kafka_seq, kafka_offset, err,
                  err_cap)) {
        producer_free(p);
        return NULL;
    }
    return p;
}

/* Takes the topic's tail as the truth of what is shipped (under mu). */
static void reconcile(bsf_shipper_t *s, uint64_t kafka_seq, int64_t kafka_offset)
{
    if (kafka_seq < s->shipped_seq) {
        BSF_WARN("replication",
                 "topic %s holds this site's events up to sequence %" PRIu64 " only, %" PRIu64
                 " were shipped before: shipping again from there",
                 s->cfg.topic, kafka_seq, s->shipped_seq);
        s->scan_pos = 0;
        s->pending = false;
    }
    s->shipped_seq = kafka_seq;
    s->shipped_offset = kafka_seq ? kafka_offset : -1;
    s->hint_dirty = true;
    s->stats.shipped_seq = kafka_seq;
    s->stats.connects++;
    if (s->engine)
        bsf_engine_raise_seq_floor(s->engine, kafka_seq);
}

/* ---- one transaction -------------------------------------------------------------------- */

typedef struct {
    bsf_shipper_t *s;
    producer_t *p;
    uint64_t after_seq; /* ship this site's events above it */
    size_t max;
    size_t produced;
    uint64_t last_seq, scanned_pos;
    bool in_txn, failed, broken;
    char why[256];
} ship_run_t;

static int visit_event(void *ctx, uint64_t position, const void *data, size_t len)
{
    ship_run_t *run = ctx;
    bsf_shipper_t *s = run->s;
    bsf_event_t ev;
    if (bsf_event_decode_envelope(data, len, &ev)) {
        BSF_ERROR("replication", "log position %" PRIu64 " holds no readable event; not shipped",
                  position);
        run->scanned_pos = position;
        return 0;
    }
    if (ev.site != s->site || ev.seq <= run->after_seq) {
        run->scanned_pos = position;
        return 0;
    }
    if (!run->in_txn) {
        rd_kafka_error_t *e = rd_kafka_begin_transaction(run->p->rk);
        if (e) {
            snprintf(run->why, sizeof run->why, "begin transaction: %s",
                     rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            run->failed = run->broken = true;
            return 1;
        }
        run->in_txn = true;
    }
    char key[BSF_BINDING_ID_TEXT_LEN + 1], site[8], seq[24];
    bsf_binding_id_format(&ev.binding_id, key);
    snprintf(site, sizeof site, "%u", (unsigned)ev.site);
    snprintf(seq, sizeof seq, "%" PRIu64, ev.seq);
    run->p->dr_pending++;
    rd_kafka_resp_err_t e = rd_kafka_producev(
        run->p->rk, RD_KAFKA_V_TOPIC(s->cfg.topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY(key, BSF_BINDING_ID_TEXT_LEN), RD_KAFKA_V_VALUE((void *)data, len),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_TIMESTAMP((int64_t)BSF_HLC_MS(ev.hlc)),
        RD_KAFKA_V_HEADER("event-type", bsf_event_type_name(ev.type), -1),
        RD_KAFKA_V_HEADER("site", site, -1), RD_KAFKA_V_HEADER("seq", seq, -1),
        RD_KAFKA_V_END);
    if (e) {
        run->p->dr_pending--;
        snprintf(run->why, sizeof run->why, "produce: %s", rd_kafka_err2str(e));
        run->failed = true;
        return 1;
    }
    run->produced++;
    run->last_seq = ev.seq;
    run->scanned_pos = position;
    return run->produced >= run->max;
}

static int ms_left(uint64_t deadline_ns)
{
    uint64_t now = bsf_clock_mono_ns();
    return now >= deadline_ns ? 0 : (int)((deadline_ns - now) / 1000000u);
}

/* Aborts the running transaction; SHIP_ABORTED when Kafka confirmed it. */
static ship_outcome_t abort_txn(ship_run_t *run, uint64_t deadline_ns)
{
    int left = ms_left(deadline_ns);
    rd_kafka_error_t *e = rd_kafka_abort_transaction(run->p->rk, left > 500 ? left : 500);
    if (!e)
        return SHIP_ABORTED;
    BSF_WARN("replication", "aborting the Kafka transaction: %s", rd_kafka_error_string(e));
    rd_kafka_error_destroy(e);
    return SHIP_BROKEN;
}

/* Produces this site's events found in the log after `from_pos` with a sequence number above
 * `after_seq` (at most `max`) in one Kafka transaction and commits it. */
static ship_outcome_t ship_txn(bsf_shipper_t *s, producer_t *p, MDB_txn *txn, uint64_t from_pos,
                               uint64_t after_seq, size_t max, uint64_t deadline_ns,
                               ship_run_t *run)
{
    *run = (ship_run_t){.s = s, .p = p, .after_seq = after_seq, .max = max,
                        .scanned_pos = from_pos};
    p->dr_err = 0;
    p->dr_pending = 0;
    uint64_t t0 = bsf_clock_mono_ns();
    int rc = bsf_embedded_log_scan(&s->store->log, txn, from_pos + 1, visit_event, run);
    if (rc) {
        snprintf(run->why, sizeof run->why, "reading the log: %s", bsf_strerror(rc));
        run->failed = true;
    }
    if (run->failed) {
        if (!run->in_txn)
            return run->broken ? SHIP_BROKEN : SHIP_ABORTED;
        return abort_txn(run, deadline_ns);
    }
    if (!run->produced)
        return SHIP_OK;
    /* Wait for the delivery reports here: commit_transaction's own flush polls coarsely. */
    while (p->dr_pending && ms_left(deadline_ns) > 0)
        rd_kafka_poll(p->rk, 1);
    if (p->dr_pending || p->dr_err) {
        snprintf(run->why, sizeof run->why, "delivery: %s",
                 p->dr_err ? rd_kafka_err2str(p->dr_err) : "timed out");
        return abort_txn(run, deadline_ns);
    }
    for (;;) {
        int left = ms_left(deadline_ns);
        rd_kafka_error_t *e = rd_kafka_commit_transaction(p->rk, left > 1 ? left : 1);
        if (!e)
            break;
        snprintf(run->why, sizeof run->why, "commit: %s", rd_kafka_error_string(e));
        bool retry = rd_kafka_error_is_retriable(e) && ms_left(deadline_ns) > 0;
        bool abortable = rd_kafka_error_txn_requires_abort(e);
        rd_kafka_error_destroy(e);
        if (retry)
            continue;
        return abortable ? abort_txn(run, deadline_ns) : SHIP_BROKEN;
    }
    uint64_t ns = bsf_clock_mono_ns() - t0;
    static const unsigned bounds[] = BSF_SHIPPER_TXN_BUCKETS_MS;
    pthread_mutex_lock(&s->mu);
    s->stats.transactions++;
    s->stats.shipped_events += run->produced;
    s->stats.txn_ns_total += ns;
    if (ns > s->stats.txn_ns_max)
        s->stats.txn_ns_max = ns;
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        if (bounds[i] == 0 || ns <= (uint64_t)bounds[i] * 1000000u) {
            s->stats.txn_buckets[i]++;
            break;
        }
    pthread_mutex_unlock(&s->mu);
    return SHIP_OK;
}

static void count_failure(bsf_shipper_t *s, ship_outcome_t outcome, const char *why)
{
    pthread_mutex_lock(&s->mu);
    s->stats.failures++;
    if (outcome == SHIP_ABORTED)
        s->stats.aborted_transactions++;
    uint64_t now = bsf_clock_mono_ns();
    bool warn = now >= s->next_warn_ns;
    if (warn)
        s->next_warn_ns = now + 10000000000u;
    pthread_mutex_unlock(&s->mu);
    if (warn)
        BSF_WARN("replication", "shipping to %s failed (%s)%s", s->cfg.topic, why,
                 outcome == SHIP_BROKEN ? "; the producer is replaced" : "");
}

/* ---- durability=local: the thread ships committed events ---------------------------------- */

/* Ships one transaction's worth from the committed log. Returns the outcome; *more when the
 * batch was full, *shipped the number of events. Called by the thread that owns the producer (CONNECTED). */
static ship_outcome_t ship_committed(bsf_shipper_t *s, bool *more, size_t *shipped)
{
    MDB_txn *txn;
    *more = false;
    *shipped = 0;
    int rc = mdb_txn_begin(s->store->env, NULL, MDB_RDONLY, &txn);
    if (rc) {
        count_failure(s, SHIP_ABORTED, bsf_strerror(rc));
        return SHIP_ABORTED;
    }
    pthread_mutex_lock(&s->mu);
    producer_t *p = s->producer; /* CONNECTED, owned by this thread */
    uint64_t from = s->scan_pos, after = s->shipped_seq;
    pthread_mutex_unlock(&s->mu);
    ship_run_t run;
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)s->cfg.transaction_timeout_ms * 500000u;
    ship_outcome_t outcome = ship_txn(s, p, txn, from, after, s->cfg.ship_batch, deadline, &run);
    mdb_txn_abort(txn);
    if (outcome != SHIP_OK) {
        count_failure(s, outcome, run.why);
        return outcome;
    }
    pthread_mutex_lock(&s->mu);
    if (run.produced) {
        s->shipped_seq = s->stats.shipped_seq = run.last_seq;
        s->shipped_offset = p->dr_offset;
        s->hint_dirty = true;
    }
    s->scan_pos = run.scanned_pos;
    pthread_mutex_unlock(&s->mu);
    *more = run.produced >= s->cfg.ship_batch;
    *shipped = run.produced;
    return SHIP_OK;
}

static uint64_t own_seq(bsf_shipper_t *s)
{
    bsf_engine_stats_t st;
    bsf_engine_stats(s->engine, &st);
    return st.own_seq;
}

/* Connects (without holding mu). Called with mu held; returns with it held. */
static void try_connect(bsf_shipper_t *s, int timeout_ms)
{
    int64_t from = s->shipped_offset;
    conn_connecting(s);
    pthread_mutex_unlock(&s->mu);
    char err[512];
    uint64_t kseq;
    int64_t koff;
    producer_t *p = connect_producer(s, from, timeout_ms, &kseq, &koff, err, sizeof err);
    pthread_mutex_lock(&s->mu);
    uint64_t now = bsf_clock_mono_ns();
    if (!p) {
        if (now >= s->next_warn_ns) {
            s->next_warn_ns = now + 10000000000u;
            BSF_WARN("replication", "Kafka not available for shipping: %s (retrying)", err);
        }
        conn_failed(s, now);
        return;
    }
    reconcile(s, kseq, koff);
    BSF_INFO("replication", "shipping to %s as %s: this site's events up to %" PRIu64
             " are in Kafka",
             s->cfg.topic, s->cfg.transactional_id, kseq);
    conn_established(s, p);
}

/* durability=local, after a broken transaction: destroys the producer (without holding mu)
 * and reconnects after the shortest backoff. Called with mu held; returns with it held. */
static void drop_producer(bsf_shipper_t *s)
{
    producer_t *p =
        conn_release(s, bsf_clock_mono_ns() + (uint64_t)BACKOFF_MIN_MS * 1000000u);
    pthread_mutex_unlock(&s->mu);
    producer_free(p);
    pthread_mutex_lock(&s->mu);
}

static void drain(bsf_shipper_t *s)
{
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)s->cfg.shutdown_timeout_ms * 1000000u;
    pthread_mutex_lock(&s->mu);
    while (bsf_clock_mono_ns() < deadline && own_seq(s) > s->shipped_seq) {
        if (s->conn != CONN_CONNECTED) {
            int left = (int)((deadline - bsf_clock_mono_ns()) / 1000000u);
            try_connect(s, left < CONNECT_TIMEOUT_MS ? left : CONNECT_TIMEOUT_MS);
            if (s->conn != CONN_CONNECTED)
                break;
        }
        pthread_mutex_unlock(&s->mu);
        bool more;
        size_t shipped;
        ship_outcome_t o = ship_committed(s, &more, &shipped);
        pthread_mutex_lock(&s->mu);
        if (o == SHIP_BROKEN)
            drop_producer(s);
        if (o == SHIP_OK && !shipped)
            break; /* nothing left in the log above what Kafka holds */
    }
    uint64_t left = own_seq(s) > s->shipped_seq ? own_seq(s) - s->shipped_seq : 0;
    pthread_mutex_unlock(&s->mu);
    if (left)
        BSF_WARN("replication", "%" PRIu64 " event(s) of this site not shipped yet; they are "
                 "shipped at the next start", left);
}

static void *shipper_main(void *arg)
{
    bsf_shipper_t *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!bsf_worker_stopping(&s->worker)) {
        if (s->conn == CONN_BROKEN) {
            producer_t *p = conn_release(s, s->retry_at_ns);
            pthread_mutex_unlock(&s->mu);
            producer_free(p);
            pthread_mutex_lock(&s->mu);
            continue;
        }
        uint64_t now = bsf_clock_mono_ns();
        if (s->conn == CONN_DISCONNECTED && now >= s->retry_at_ns) {
            try_connect(s, CONNECT_TIMEOUT_MS);
            continue;
        }
        if (!s->replicated && s->conn == CONN_CONNECTED && s->notified &&
            now >= s->next_txn_ns) {
            s->notified = false;
            pthread_mutex_unlock(&s->mu);
            bool more = false;
            size_t shipped;
            ship_outcome_t o = ship_committed(s, &more, &shipped);
            pthread_mutex_lock(&s->mu);
            if (o == SHIP_BROKEN)
                drop_producer(s);
            if (more)
                s->notified = true;
            if (o != SHIP_OK)
                s->retry_at_ns = bsf_clock_mono_ns() + (uint64_t)BACKOFF_MIN_MS * 1000000u;
            /* kafka.ship_interval_ms: meanwhile the coordinator writes the previous
             * transaction's markers (registering the partition sooner gets
             * CONCURRENT_TRANSACTIONS, which librdkafka retries after a fixed 20 ms), and
             * events gather for a larger next transaction. */
            s->next_txn_ns = bsf_clock_mono_ns() + (uint64_t)s->cfg.ship_interval_ms * 1000000u;
            continue;
        }
        struct timespec until = bsf_deadline_after_ns(
            s->notified && s->conn == CONN_CONNECTED && now < s->next_txn_ns
                ? s->next_txn_ns - now
                : 100000000u);
        if (bsf_cond_wait_until(&s->cv, &s->mu, &until) == -ETIMEDOUT && !s->replicated &&
            bsf_clock_mono_ns() >= s->retry_at_ns)
            s->notified = true; /* look again: a failed transaction left events behind */
    }
    pthread_mutex_unlock(&s->mu);
    if (!s->replicated)
        drain(s);
    return NULL;
}

/* ---- engine hooks ----------------------------------------------------------------------- */

static void refuse(bsf_problem_t *problem, const char *why)
{
    bsf_problem_set(problem, BSF_CAUSE_NF_CONGESTION,
                    "the replicated log (Kafka) did not take the write: %s; the request had no "
                    "effect, retry later or at another site",
                    why);
}

int bsf_shipper_before_commit(void *ctx, MDB_txn *txn, uint64_t first_seq, uint64_t last_seq,
                              bsf_problem_t *problem)
{
    bsf_shipper_t *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (s->hint_dirty && write_hint(s, txn, s->scan_pos) == 0) {
        s->hint_dirty = false;
        s->hint_in_txn = true;
    }
    /* Anything of this site not in Kafka yet: this batch's events, or older ones. */
    bool has_new = first_seq <= last_seq || first_seq - 1 > s->shipped_seq;
    if (!s->replicated || !has_new) {
        pthread_mutex_unlock(&s->mu);
        return BSF_ENGINE_HOOK_OK;
    }
    producer_t *p = conn_take(s);
    uint64_t from = s->scan_pos, after = s->shipped_seq;
    pthread_mutex_unlock(&s->mu);
    if (!p) {
        pthread_mutex_lock(&s->mu);
        s->stats.refused_batches++;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        refuse(problem, "not connected");
        return BSF_ENGINE_HOOK_REFUSE;
    }
    ship_run_t run;
    uint64_t deadline = bsf_clock_mono_ns() + (uint64_t)s->cfg.replicated_timeout_ms * 1000000u;
    ship_outcome_t outcome = ship_txn(s, p, txn, from, after, SIZE_MAX, deadline, &run);
    if (outcome != SHIP_OK) {
        count_failure(s, outcome, run.why);
        pthread_mutex_lock(&s->mu);
        s->stats.refused_batches++;
        if (outcome == SHIP_BROKEN)
            conn_broken(s);
        pthread_mutex_unlock(&s->mu);
        refuse(problem, run.why);
        return BSF_ENGINE_HOOK_REFUSE;
    }
    pthread_mutex_lock(&s->mu);
    if (run.produced) {
        s->shipped_seq = s->stats.shipped_seq = run.last_seq;
        s->shipped_offset = p->dr_offset;
        if (write_hint(s, txn, run.scanned_pos) == 0)
            s->hint_in_txn = true;
        else
            s->hint_dirty = true;
    }
    s->pending_scan_pos = run.scanned_pos;
    s->pending = true;
    pthread_mutex_unlock(&s->mu);
    return run.produced ? BSF_ENGINE_HOOK_EXPORTED : BSF_ENGINE_HOOK_OK;
}

void bsf_shipper_after_commit(void *ctx, bool committed)
{
    bsf_shipper_t *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (s->pending) {
        if (committed)
            s->scan_pos = s->pending_scan_pos;
        s->pending = false;
    }
    if (s->hint_in_txn) {
        s->hint_dirty = s->hint_dirty || !committed;
        s->hint_in_txn = false;
    }
    if (!s->replicated && committed) {
        s->notified = true;
        pthread_cond_signal(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int bsf_shipper_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                       bsf_store_t *store, bsf_shipper_t **out, char *err, size_t err_cap)
{
    bsf_shipper_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    s->cfg = *settings;
    s->site = site_id;
    s->store = store;
    s->replicated = settings->durability == BSF_DURABILITY_REPLICATED;
    s->shipped_offset = -1;
    snprintf(s->hint_name, sizeof s->hint_name, "ship/%s", settings->topic);
    pthread_mutex_init(&s->mu, NULL);
    bsf_cond_init_monotonic(&s->cv);
    if (read_hint(s, err, err_cap)) {
        bsf_shipper_destroy(s);
        return -1;
    }
    s->stats.shipped_seq = s->shipped_seq;
    *out = s;
    return 0;
}

int bsf_shipper_start(bsf_shipper_t *s, bsf_engine_t *engine, int connect_timeout_ms, char *err,
                      size_t err_cap)
{
    s->engine = engine;
    pthread_mutex_lock(&s->mu);
    if (connect_timeout_ms > 0)
        try_connect(s, connect_timeout_ms);
    pthread_mutex_unlock(&s->mu);
    int rc = bsf_worker_start(&s->worker, shipper_main, s, NULL);
    if (rc) {
        snprintf(err, err_cap, "cannot start the shipper: %s", bsf_strerror(rc));
        return -1;
    }
    return 0;
}

void bsf_shipper_stop(bsf_shipper_t *s)
{
    if (!s || !s->worker.started)
        return;
    bsf_worker_stop(&s->worker, &s->mu, &s->cv);
    /* The engine has stopped: the hint can be written in a transaction of our own. */
    MDB_txn *txn;
    if (mdb_txn_begin(s->store->env, NULL, 0, &txn) == 0) {
        pthread_mutex_lock(&s->mu);
        int rc = write_hint(s, txn, s->scan_pos);
        pthread_mutex_unlock(&s->mu);
        if (rc || mdb_txn_commit(txn))
            BSF_WARN("replication", "cannot write the shipper's position hint");
        if (rc)
            mdb_txn_abort(txn);
    }
}

void bsf_shipper_destroy(bsf_shipper_t *s)
{
    if (!s)
        return;
    bsf_shipper_stop(s);
    producer_free(s->producer);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

void bsf_shipper_stats(bsf_shipper_t *s, bsf_shipper_stats_t *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->stats;
    out->connected = s->conn == CONN_READY || s->conn == CONN_CONNECTED;
    pthread_mutex_unlock(&s->mu);
}

uint64_t bsf_shipper_shipped_position(bsf_shipper_t *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t pos = s->scan_pos;
    pthread_mutex_unlock(&s->mu);
    return pos;
}
