#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/clock.h"
#include "common/diag.h"
#include "core/decide.h"
#include "core/hlc.h"

#define MAX_CANDIDATES 64

struct bsf_engine {
    bsf_store_t *store;
    bsf_engine_config_t cfg;

    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bsf_command_t *head, *tail;
    size_t depth;
    bool stopping;
    bsf_engine_stats_t stats; /* under mu */

    /* Engine-thread state. */
    uint64_t seq;       /* last sequence number issued by this site */
    bsf_hlc_t hlc;
    msgpack_sbuffer event_buf, scratch;
    msgpack_zone zone;  /* per-command scratch: candidates */
    uint8_t random[4096];
    size_t random_used;
    uint64_t events_in_batch;
};

/* ---- helpers ----------------------------------------------------------------------- */

static void next_random(bsf_engine_t *e, uint8_t out[8])
{
    if (e->random_used + 8 > sizeof e->random) {
        size_t got = 0;
        while (got < sizeof e->random) {
            ssize_t n = getrandom(e->random + got, sizeof e->random - got, 0);
            if (n < 0 && errno != EINTR)
                break;
            if (n > 0)
                got += (size_t)n;
        }
        e->random_used = 0;
    }
    memcpy(out, e->random + e->random_used, 8);
    e->random_used += 8;
}

static int emit(bsf_engine_t *e, MDB_txn *txn, bsf_event_t *ev, uint64_t *position)
{
    ev->site = e->cfg.site_id;
    ev->seq = ++e->seq;
    ev->hlc = bsf_hlc_tick(&e->hlc, bsf_clock_wall_ms());
    if (ev->type == BSF_EVENT_BINDING_REGISTERED)
        ev->created_hlc = ev->hlc;
    e->events_in_batch++;
    return bsf_store_write_event(e->store, txn, ev, &e->event_buf, &e->scratch, position);
}

static int encode_binding(const bsf_pcf_binding_t *b, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    return bsf_pcf_binding_encode(b, &pk) ? ENOMEM : 0;
}

static void refuse(bsf_command_t *cmd, const bsf_problem_t *problem)
{
    cmd->status = BSF_CMD_REFUSED;
    cmd->problem = *problem;
}

/* ---- commands ---------------------------------------------------------------------- */

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_match_t matches[MAX_CANDIDATES];
    bsf_binding_view_t views[MAX_CANDIDATES];
    size_t n = 0;
    int rc = bsf_projection_collect_candidates(&e->store->proj, txn, &cmd->binding, &e->zone,
                                               matches, MAX_CANDIDATES, &n);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        views[i] = (bsf_binding_view_t){matches[i].id, &matches[i].binding,
                                        matches[i].record.created_hlc,
                                        matches[i].record.origin_ts_ms,
                                        matches[i].record.sender_ts_ms};
    bsf_register_request_t req = {&cmd->binding, cmd->origin_ts_ms, cmd->sender_ts_ms};
    bsf_decide_config_t dc = {e->cfg.collision_detection};
    bsf_register_decision_t d;
    bsf_decide_register(&req, views, n, &dc, &d);
    if (d.outcome != BSF_REGISTER_ACCEPT) {
        refuse(cmd, &d.problem);
        /* SamePcf answers carry the bound PCF's addresses: hand the binding back. */
        return d.outcome == BSF_REGISTER_REJECT_SAME_PCF ? encode_binding(d.existing->binding,
                                                                          &cmd->body)
                                                         : 0;
    }
    uint8_t rnd[8];
    next_random(e, rnd);
    bsf_binding_id_make(e->cfg.site_id, e->seq + d.n_replaced + 1, rnd, &cmd->id);
    for (size_t i = 0; i < d.n_replaced; i++) {
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_DEREGISTERED,
                          .binding_id = d.replaced[i]->id,
                          .reason = d.replaced_reason[i],
                          .has_replaced_by = true,
                          .replaced_by = cmd->id};
        BSF_INFO("engine", "binding replaced (%s) by a newer registration",
                 bsf_dereg_reason_name(d.replaced_reason[i]));
        if ((rc = emit(e, txn, &ev, NULL)))
            return rc;
    }
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED,
                      .binding_id = cmd->id,
                      .binding = &cmd->binding,
                      .origin_ts_ms = cmd->origin_ts_ms,
                      .sender_ts_ms = cmd->sender_ts_ms,
                      .cookie = cmd->cookie,
                      .cookie_len = cmd->cookie_len};
    if ((rc = emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return encode_binding(&cmd->binding, &cmd->body);
}

static int load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd, bsf_record_t *rec,
                     bsf_pcf_binding_t *binding, bool *found)
{
    *found = false;
    int rc = bsf_projection_get(&e->store->proj, txn, &cmd->id, rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec->state != BSF_RECORD_LIVE))
        return 0;
    if (rc)
        return rc;
    if (bsf_record_decode_binding(rec, &cmd->zone, binding))
        return MDB_CORRUPTED;
    *found = true;
    return 0;
}

static void refuse_not_found(bsf_command_t *cmd)
{
    bsf_problem_t p;
    char id[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&cmd->id, id);
    bsf_problem_set(&p, BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND, "no PCF binding with id %s", id);
    refuse(cmd, &p);
}

static int run_update(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_record_t rec;
    bsf_pcf_binding_t current, updated;
    bool found;
    int rc = load_live(e, txn, cmd, &rec, &current, &found);
    if (rc || !found) {
        if (!rc)
            refuse_not_found(cmd);
        return rc;
    }
    if (bsf_pcf_binding_patch_is_empty(&cmd->patch))
        return encode_binding(&current, &cmd->body);
    bsf_pcf_binding_patch_apply(&current, &cmd->patch, &updated);
    bsf_problem_t problem;
    if (bsf_pcf_binding_check_rules(&updated, &problem)) {
        refuse(cmd, &problem);
        return 0;
    }
    /* The stored cookie lives in the record's page, which this transaction rewrites. */
    char *cookie = NULL;
    if (rec.cookie_len && (cookie = msgpack_zone_malloc(&cmd->zone, rec.cookie_len)))
        memcpy(cookie, rec.cookie, rec.cookie_len);
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_UPDATED,
                      .binding_id = cmd->id,
                      .binding = &updated,
                      .created_hlc = rec.created_hlc,
                      .origin_ts_ms = rec.origin_ts_ms,
                      .sender_ts_ms = rec.sender_ts_ms,
                      .cookie = cookie,
                      .cookie_len = cookie ? rec.cookie_len : 0};
    if ((rc = emit(e, txn, &ev, &cmd->log_position)))
        return rc;
    return encode_binding(&updated, &cmd->body);
}

static int run_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_record_t rec;
    bsf_pcf_binding_t current;
    bool found;
    int rc = load_live(e, txn, cmd, &rec, &current, &found);
    if (rc || !found) {
        if (!rc)
            refuse_not_found(cmd);
        return rc;
    }
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_DEREGISTERED,
                      .binding_id = cmd->id,
                      .reason = cmd->reason ? cmd->reason : BSF_REASON_PCF_REQUEST};
    return emit(e, txn, &ev, &cmd->log_position);
}

static int run_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    msgpack_zone_clear(&e->zone);
    bsf_command_reset_outcome(cmd);
    switch (cmd->kind) {
    case BSF_CMD_REGISTER:
        return run_register(e, txn, cmd);
    case BSF_CMD_UPDATE:
        return run_update(e, txn, cmd);
    default:
        return run_deregister(e, txn, cmd);
    }
}

/* ---- batches ----------------------------------------------------------------------- */

static void fail_command(bsf_command_t *cmd, int rc)
{
    cmd->status = BSF_CMD_FAILED;
    if (rc == MDB_MAP_FULL)
        bsf_problem_set(&cmd->problem, BSF_CAUSE_INSUFFICIENT_STORAGE,
                        "the binding store is full");
    else
        bsf_problem_set(&cmd->problem, BSF_CAUSE_SYSTEM_FAILURE, "the binding store failed: %s",
                        mdb_strerror(rc));
    msgpack_sbuffer_clear(&cmd->body);
}

/* Runs the commands in one transaction. On a store error the transaction is aborted and the
 * engine's counters restored; returns the LMDB error (no command took effect). */
static int run_batch(bsf_engine_t *e, bsf_command_t **cmds, size_t n, uint64_t *commit_ns)
{
    uint64_t seq = e->seq, hlc = e->hlc.last, log_last = e->store->log.last;
    MDB_txn *txn;
    int rc = mdb_txn_begin(e->store->env, NULL, 0, &txn);
    if (rc)
        return rc;
    e->events_in_batch = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = run_command(e, txn, cmds[i]);
    if (!rc)
        rc = bsf_store_save_site_state(e->store, txn, e->cfg.site_id, e->seq, e->hlc.last);
    if (!rc) {
        uint64_t t0 = bsf_clock_mono_ns();
        rc = mdb_txn_commit(txn);
        *commit_ns = bsf_clock_mono_ns() - t0;
        if (!rc)
            return 0;
    } else {
        mdb_txn_abort(txn);
    }
    e->seq = seq;
    e->hlc.last = hlc;
    e->store->log.last = log_last;
    e->events_in_batch = 0;
    return rc;
}

static void process(bsf_engine_t *e, bsf_command_t **cmds, size_t n)
{
    uint64_t commit_ns = 0;
    int rc = run_batch(e, cmds, n, &commit_ns);
    uint64_t events = e->events_in_batch;
    bool failed = rc != 0;
    if (rc && n > 1) {
        /* Isolate the command that failed: the others must not pay for it. */
        for (size_t i = 0; i < n; i++) {
            uint64_t ns = 0;
            int one = run_batch(e, &cmds[i], 1, &ns);
            if (one)
                fail_command(cmds[i], one);
            commit_ns += ns;
            events += e->events_in_batch;
        }
    } else if (rc) {
        fail_command(cmds[0], rc);
    }
    if (failed)
        BSF_ERROR("engine", "write transaction failed: %s", mdb_strerror(rc));
    pthread_mutex_lock(&e->mu);
    e->stats.commands += n;
    e->stats.batches++;
    e->stats.events += events;
    e->stats.failed_batches += failed;
    e->stats.commit_ns_total += commit_ns;
    if (n > e->stats.max_batch_seen)
        e->stats.max_batch_seen = n;
    e->stats.log_position = e->store->log.last;
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < n; i++)
        cmds[i]->done(cmds[i]);
}

static void *engine_main(void *arg)
{
    bsf_engine_t *e = arg;
    bsf_command_t **batch = calloc(e->cfg.max_batch, sizeof *batch);
    if (!batch) {
        BSF_ERROR("engine", "out of memory");
        abort();
    }
    for (;;) {
        pthread_mutex_lock(&e->mu);
        while (!e->head && !e->stopping)
            pthread_cond_wait(&e->cv, &e->mu);
        if (!e->head) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        size_t n = 0;
        while (e->head && n < e->cfg.max_batch) {
            batch[n++] = e->head;
            e->head = e->head->next;
        }
        if (!e->head)
            e->tail = NULL;
        e->depth -= n;
        e->stats.queue_depth = e->depth;
        pthread_mutex_unlock(&e->mu);
        process(e, batch, n);
    }
    free(batch);
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------------- */

int bsf_engine_create(bsf_store_t *store, const bsf_engine_config_t *cfg, bsf_engine_t **out,
                      char *err, size_t err_cap)
{
    bsf_engine_t *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    e->store = store;
    e->cfg = *cfg;
    if (e->cfg.max_batch == 0)
        e->cfg.max_batch = 1;
    e->random_used = sizeof e->random;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    msgpack_sbuffer_init(&e->event_buf);
    msgpack_sbuffer_init(&e->scratch);
    if (!msgpack_zone_init(&e->zone, 16384)) {
        bsf_engine_destroy(e);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    MDB_txn *txn;
    int rc = mdb_txn_begin(store->env, NULL, MDB_RDONLY, &txn);
    if (!rc) {
        rc = bsf_store_load_site_state(store, txn, cfg->site_id, &e->seq, &e->hlc.last);
        mdb_txn_abort(txn);
    }
    if (rc) {
        snprintf(err, err_cap, "cannot read the site state: %s", mdb_strerror(rc));
        bsf_engine_destroy(e);
        return -1;
    }
    e->stats.log_position = store->log.last;
    *out = e;
    return 0;
}

int bsf_engine_start(bsf_engine_t *e)
{
    int rc = pthread_create(&e->thread, NULL, engine_main, e);
    if (rc == 0)
        e->started = true;
    return rc ? -1 : 0;
}

int bsf_engine_submit(bsf_engine_t *e, bsf_command_t *cmd)
{
    cmd->next = NULL;
    cmd->submitted_ns = bsf_clock_mono_ns();
    pthread_mutex_lock(&e->mu);
    if (e->stopping || e->depth >= e->cfg.queue_capacity) {
        pthread_mutex_unlock(&e->mu);
        return -1;
    }
    if (e->tail)
        e->tail->next = cmd;
    else
        e->head = cmd;
    e->tail = cmd;
    e->depth++;
    e->stats.queue_depth = e->depth;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
    return 0;
}

void bsf_engine_stop(bsf_engine_t *e)
{
    pthread_mutex_lock(&e->mu);
    e->stopping = true;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
    if (e->started) {
        pthread_join(e->thread, NULL);
        e->started = false;
    }
}

void bsf_engine_destroy(bsf_engine_t *e)
{
    if (!e)
        return;
    if (e->started)
        bsf_engine_stop(e);
    msgpack_zone_destroy(&e->zone);
    msgpack_sbuffer_destroy(&e->event_buf);
    msgpack_sbuffer_destroy(&e->scratch);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
}

void bsf_engine_stats(bsf_engine_t *e, bsf_engine_stats_t *out)
{
    pthread_mutex_lock(&e->mu);
    *out = e->stats;
    pthread_mutex_unlock(&e->mu);
}
