#include "engine/log_retention.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "common/diag.h"
#include "common/error.h"
#include "common/metrics_text.h"
#include "common/worker_thread.h"
#include "core/event.h"
#include "core/hlc.h"
#include "core/bytes.h"
#include "engine/store.h"

struct bsf_log_retention {
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_log_retention_config_t cfg;
    char archive_dir[1024];
    bsf_log_segment_t seg; /* the round's thread only */
    uint64_t warn_at_ns;   /* the round's thread only: no failure warning before */
    bsf_worker_t worker; /* its stop flag is set under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bsf_log_retention_stats_t stats; /* under mu */
};

bool bsf_log_trim_due(uint64_t position, uint64_t event_ms, uint64_t now_ms,
                      uint64_t retention_ms, uint64_t limit, uint64_t last)
{
    return retention_ms && position < last && position <= limit && now_ms >= retention_ms &&
           event_ms < now_ms - retention_ms;
}

/* ---- one round ------------------------------------------------------------------------- */

typedef struct {
    bsf_log_retention_t *r;
    uint64_t now_ms, limit, last, archived_last;
    size_t max, taken;
    uint64_t through; /* the last position taken */
    uint64_t oldest_position, oldest_ms;
    int rc;
} round_t;

static uint64_t event_ms(const void *data, size_t len)
{
    bsf_event_t ev;
    /* An unreadable event has no time: it leaves with its neighbours (its bytes are
     * archived as they are). */
    return bsf_event_decode_envelope(data, len, &ev) ? 0 : BSF_HLC_MS(ev.hlc);
}

static int visit_oldest(void *ctx, uint64_t position, const void *data, size_t len)
{
    round_t *rd = ctx;
    rd->oldest_position = position;
    rd->oldest_ms = event_ms(data, len);
    return 1;
}

static int visit(void *ctx, uint64_t position, const void *data, size_t len)
{
    round_t *rd = ctx;
    uint64_t ms = event_ms(data, len);
    if (rd->taken >= rd->max ||
        !bsf_log_trim_due(position, ms, rd->now_ms, rd->r->cfg.retention_ms, rd->limit, rd->last))
        return 1;
    if (rd->r->archive_dir[0] && position > rd->archived_last) {
        rd->rc = bsf_log_segment_add(&rd->r->seg, position, data, len);
        if (rd->rc)
            return 1;
    }
    rd->taken++;
    rd->through = position;
    return 0;
}

/* Reads the candidates (and the log's stats) in a read transaction. */
static int scan(bsf_log_retention_t *r, round_t *rd, uint64_t from)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(r->store->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return rc;
    uint64_t events = 0, first = 0, bytes = 0;
    rc = bsf_embedded_log_stat(&r->store->log, txn, &events, &first);
    if (!rc)
        rc = bsf_embedded_log_bytes(&r->store->log, txn, &bytes);
    if (!rc) {
        MDB_cursor *cur;
        MDB_val k, v;
        rd->last = 0;
        if (mdb_cursor_open(txn, r->store->log.dbi, &cur) == 0) {
            if (mdb_cursor_get(cur, &k, &v, MDB_LAST) == 0 && k.mv_size == 8)
                rd->last = bsf_get_be64(k.mv_data);
            mdb_cursor_close(cur);
        }
        rc = bsf_embedded_log_scan(&r->store->log, txn, first, visit_oldest, rd);
    }
    if (!rc)
        rc = bsf_embedded_log_scan(&r->store->log, txn, from > first ? from : first, visit, rd);
    mdb_txn_abort(txn);
    pthread_mutex_lock(&r->mu);
    r->stats.log_events = events;
    r->stats.log_bytes = bytes;
    pthread_mutex_unlock(&r->mu);
    return rc ? rc : rd->rc;
}

long bsf_log_retention_round(bsf_log_retention_t *r, uint64_t now_ms)
{
    pthread_mutex_lock(&r->mu);
    uint64_t allowed = r->stats.allowed;
    uint64_t archived_last = r->stats.archive.last;
    pthread_mutex_unlock(&r->mu);
    round_t rd = {.r = r,
                  .now_ms = now_ms,
                  .limit = r->cfg.limit ? r->cfg.limit(r->cfg.limit_ctx) : UINT64_MAX,
                  .archived_last = archived_last,
                  .max = r->cfg.batch};
    r->seg.len = r->seg.count = 0;
    int rc = scan(r, &rd, allowed + 1);
    bsf_log_archive_stat_t st = {0};
    if (!rc && r->archive_dir[0] && r->seg.count) {
        pthread_mutex_lock(&r->mu);
        st = r->stats.archive;
        pthread_mutex_unlock(&r->mu);
        /* Durable before anything is deleted. */
        rc = bsf_log_segment_write(&r->seg, r->archive_dir, &st);
    }
    pthread_mutex_lock(&r->mu);
    r->stats.rounds++;
    r->stats.oldest_position = rd.oldest_position;
    r->stats.oldest_ms = rd.oldest_ms;
    if (rc) {
        r->stats.failures++;
    } else {
        if (st.segments)
            r->stats.archive = st;
        if (rd.taken)
            r->stats.allowed = rd.through;
    }
    pthread_mutex_unlock(&r->mu);
    if (rc) {
        /* Retried every round; said at the first failure and then once a minute. */
        uint64_t now_ns = bsf_clock_mono_ns();
        if (now_ns >= r->warn_at_ns) {
            BSF_WARN("retention", "the log's oldest events cannot leave it%s: %s (retried; "
                                  "the log grows meanwhile)",
                     r->archive_dir[0] ? " (writing the archive)" : "", bsf_strerror(rc));
            r->warn_at_ns = now_ns + 60000000000ull;
        }
        return rc < 0 ? rc : -EIO;
    }
    r->warn_at_ns = 0;
    if (rd.taken)
        bsf_engine_allow_trim(r->engine, rd.through);
    return (long)rd.taken;
}

/* ---- the thread ------------------------------------------------------------------------ */

static void *retention_main(void *arg)
{
    bsf_log_retention_t *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!bsf_worker_stopping(&r->worker)) {
        pthread_mutex_unlock(&r->mu);
        long n = bsf_log_retention_round(r, bsf_clock_wall_ms());
        pthread_mutex_lock(&r->mu);
        /* A full round: more may be due; a short pause lets the engine delete it first. */
        unsigned wait = n >= (long)r->cfg.batch ? 20u : r->cfg.period_ms;
        if (!bsf_worker_stopping(&r->worker))
            bsf_cond_wait_ms(&r->cv, &r->mu, wait);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int bsf_log_retention_create(bsf_store_t *store, bsf_engine_t *engine,
                             const bsf_log_retention_config_t *cfg, bsf_log_retention_t **out,
                             char *err, size_t err_cap)
{
    bsf_log_retention_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    r->store = store;
    r->engine = engine;
    r->cfg = *cfg;
    if (!r->cfg.batch)
        r->cfg.batch = 20000;
    if (!r->cfg.period_ms)
        r->cfg.period_ms = 1000;
    snprintf(r->archive_dir, sizeof r->archive_dir, "%s", cfg->archive_dir ? cfg->archive_dir : "");
    r->cfg.archive_dir = r->archive_dir;
    r->stats.archiving = r->archive_dir[0] != '\0';
    bsf_log_segment_init(&r->seg);
    pthread_mutex_init(&r->mu, NULL);
    bsf_cond_init_monotonic(&r->cv);
    if (r->archive_dir[0] && bsf_log_archive_open(r->archive_dir, &r->stats.archive, err, err_cap)) {
        bsf_log_retention_destroy(r);
        return -1;
    }
    *out = r;
    return 0;
}

int bsf_log_retention_start(bsf_log_retention_t *r)
{
    if (!r)
        return 0;
    return bsf_worker_start(&r->worker, retention_main, r, NULL);
}

void bsf_log_retention_stop(bsf_log_retention_t *r)
{
    if (r)
        bsf_worker_stop(&r->worker, &r->mu, &r->cv);
}

void bsf_log_retention_destroy(bsf_log_retention_t *r)
{
    if (!r)
        return;
    bsf_log_retention_stop(r);
    bsf_log_segment_free(&r->seg);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

void bsf_log_retention_stats(bsf_log_retention_t *r, bsf_log_retention_stats_t *out)
{
    pthread_mutex_lock(&r->mu);
    *out = r->stats;
    pthread_mutex_unlock(&r->mu);
}

void bsf_log_retention_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_log_retention_t *r = ctx;
    if (!r)
        return;
    bsf_log_retention_stats_t st;
    bsf_log_retention_stats(r, &st);
    bsf_engine_stats_t es;
    bsf_engine_stats(r->engine, &es);
    uint64_t now = bsf_clock_wall_ms();
    double age = st.oldest_ms && now > st.oldest_ms ? (double)(now - st.oldest_ms) / 1000.0 : 0;
    bsf_metrics_u64_family(out, "bsf_log_oldest_position", "gauge",
                           "Local log position of the oldest event in the log.",
                           st.oldest_position);
    bsf_metrics_double_family(out, "bsf_log_oldest_age_seconds", "gauge",
                              "Age of the oldest event in the log (its HLC time).", 3, age);
    const bsf_metric_row_t rows[] = {
        {"bsf_log_events", "gauge", "Events in the live log.", st.log_events},
        {"bsf_log_bytes", "gauge", "Pages of the log in the store.", st.log_bytes},
        {"bsf_log_trimmed_events_total", "counter", "Events that left the log (log.retention).",
         es.log_trimmed},
        {"bsf_log_retention_failures_total", "counter",
         "Retention rounds that could not archive or read (retried every second).", st.failures},
    };
    BSF_METRICS_ROWS(out, rows);
    const bsf_metric_row_t archive[] = {
        {"bsf_log_archive_bytes", "gauge", "Size of the archive (log.archive_dir).",
         st.archive.bytes},
        {"bsf_log_archive_segments", "gauge", "Segment files in the archive.",
         st.archive.segments},
        {"bsf_log_archive_last_position", "gauge", "Last log position archived.",
         st.archive.last},
    };
    if (st.archiving)
        BSF_METRICS_ROWS(out, archive);
}
