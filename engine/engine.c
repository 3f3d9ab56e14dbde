#include "engine/engine.h"
#include "engine/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/deadline.h"
#include "common/error.h"
#include "common/clock.h"
#include "common/diag.h"
#include "common/fifo.h"
#include "core/decide.h"
#include "core/hlc.h"
#include "engine/doc_steps.h"
#include "engine/engine_internal.h"
#include "engine/notify_match.h"
#include "engine/sub_index.h"
#include "engine/sub_commands.h"
#include "projections/counters.h"

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
    size_t window_need; /* in the commit window: queued commands that fill the batch; else 0 */
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
    uint64_t reserve_bytes;     /* cfg.reserve_percent of the map */
    bool at_reserve;            /* registrations refused: the free space is under the reserve */
    uint64_t space_scanned_ns;  /* when the free list was last counted */
    uint64_t space_free;        /* bytes free at the last measure */
    uint64_t reserve_refusals;  /* since the last stats update */
    uint64_t full_failures;     /* write transactions failed for lack of space, not yet logged */
    uint64_t full_logged_ns;    /* when the last of those was logged (0: never) */
    uint64_t replaced_unlogged; /* bindings replaced since the last summary line */
    uint64_t replaced_logged_ns; /* when that line was written (0: never) */
    _Atomic uint64_t seq_floor; /* bsf_engine_raise_seq_floor */
    _Atomic uint64_t trim_allowed; /* bsf_engine_allow_trim */
    uint64_t trimmed_through;      /* engine thread: positions <= it are deleted */
    uint64_t trimmed_ns;           /* when the last trimming transaction ran */
    uint64_t trim_retry_ns;        /* after a failed one: none before */
    uint64_t ride_off_ns;          /* no riding deletions before (a batch with them failed) */
    uint64_t rode_ns;              /* when a batch last carried deletions */
    bool rode;                     /* the open transaction carries deletions: */
    bool ride_failed;              /* a batch carrying them failed (process() retries it) */
    uint64_t rode_allowed;         /* trimmed up to this position allowed, */
    size_t rode_quota, rode_trimmed, rode_collected; /* this many of at most quota each */
    uint64_t next_expiry_ns;       /* engine thread: when to look for expired subscriptions */
    bool expiry_queued;            /* a BSF_CMD_SUB_EXPIRE is queued or running */
    bsf_notify_list_t notify_pending; /* notifications of the open transaction */
    msgpack_zone notify_zone;         /* scratch of the matching */
    bsf_sub_index_t subs;             /* subscribed UEs and cached subscriptions */
};

/* ---- helpers ----------------------------------------------------------------------- */

#define REPLACED_SUMMARY_NS 60000000000ull

void bsf_engine_note_replaced(bsf_engine_t *e, const char *kind, const bsf_binding_id_t *old,
                              const bsf_binding_id_t *by, bsf_dereg_reason_t reason)
{
    e->replaced_unlogged++;
    if (!bsf_log_enabled(BSF_LOG_DEBUG, "engine"))
        return;
    char a[BSF_BINDING_ID_TEXT_LEN + 1], b[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(old, a);
    bsf_binding_id_format(by, b);
    BSF_DEBUG("engine", "%s %s replaced (%s) by %s", kind, a, bsf_dereg_reason_name(reason), b);
}

/* Replacements are routine (a PCF registering a session again): one INFO line at most per
 * minute with their number, never a line each (200,000 re-registrations wrote 18.8 MB). */
static void report_replaced(bsf_engine_t *e, bool now_anyway)
{
    uint64_t now = bsf_clock_mono_ns();
    if (!e->replaced_unlogged ||
        (!now_anyway && e->replaced_logged_ns && now - e->replaced_logged_ns < REPLACED_SUMMARY_NS))
        return;
    BSF_INFO("engine", "%llu binding(s) replaced by a newer registration since the last report "
                       "(each one at log.modules engine=debug)",
             (unsigned long long)e->replaced_unlogged);
    e->replaced_unlogged = 0;
    e->replaced_logged_ns = now;
}

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

/* Before `ev` is applied (a deregistration must still see its binding). */
static int match_notifications(bsf_engine_t *e, MDB_txn *txn, const bsf_event_t *ev)
{
    if (!e->cfg.notify.deliver)
        return 0;
    return bsf_notify_match(e->store, txn, ev, (int64_t)bsf_clock_wall_ms(), &e->subs,
                            &e->notify_zone, &e->notify_pending);
}

/* Writes one event (`raw`: as received from the log, else encoded here), keeping the
 * subscription set and cache exact around a subscription event (engine/sub_index.h). */
static int write_event(bsf_engine_t *e, MDB_txn *txn, const bsf_event_t *ev, const char *raw,
                       size_t len, uint64_t *position)
{
    bool sub = bsf_event_is_subscription(ev->type);
    bsf_sub_values_t old;
    int rc = sub ? bsf_sub_index_before(&e->subs, e->store, txn, ev, &e->notify_zone, &old) : 0;
    if (!rc)
        rc = raw ? bsf_store_write_raw_event(e->store, txn, raw, len, ev, &e->scratch, position)
                 : bsf_store_write_event(e->store, txn, ev, &e->event_buf, &e->scratch,
                                         position);
    if (!rc && sub)
        rc = bsf_sub_index_after(&e->subs, e->store, txn, ev, &e->notify_zone, &old);
    return rc;
}

/* After a commit: the transaction's notifications go to the sink (it only queues them). */
static void hand_over_notifications(bsf_engine_t *e)
{
    bsf_notify_item_t *items = e->notify_pending.head;
    e->notify_pending.head = e->notify_pending.tail = NULL;
    e->notify_pending.n = 0;
    if (!items)
        return;
    uint64_t now = bsf_clock_mono_ns();
    for (bsf_notify_item_t *it = items; it; it = it->next)
        it->committed_ns = now;
    e->cfg.notify.deliver(e->cfg.notify.ctx, items);
}

static int emit(bsf_engine_t *e, MDB_txn *txn, bsf_event_t *ev, uint64_t *position)
{
    ev->site = e->cfg.site_id;
    ev->seq = ++e->seq;
    ev->hlc = bsf_hlc_tick(&e->hlc, bsf_clock_wall_ms());
    if (ev->type == BSF_EVENT_BINDING_REGISTERED || ev->type == BSF_EVENT_UE_BINDING_REGISTERED ||
        ev->type == BSF_EVENT_MBS_BINDING_REGISTERED || ev->type == BSF_EVENT_SUBSCRIPTION_CREATED)
        ev->created_hlc = ev->hlc;
    e->events_in_batch++;
    int rc = match_notifications(e, txn, ev);
    return rc ? rc : write_event(e, txn, ev, NULL, 0, position);
}

int bsf_engine_emit(bsf_engine_t *e, MDB_txn *txn, bsf_event_t *ev, uint64_t *position)
{
    return emit(e, txn, ev, position);
}

void bsf_engine_new_id(bsf_engine_t *e, size_t events_before, bsf_binding_id_t *out)
{
    uint8_t rnd[8];
    next_random(e, rnd);
    bsf_binding_id_make(e->cfg.site_id, e->seq + events_before + 1, rnd, out);
}

uint16_t bsf_engine_site(const bsf_engine_t *e)
{
    return e->cfg.site_id;
}

msgpack_zone *bsf_engine_zone(bsf_engine_t *e)
{
    return &e->zone;
}

bsf_store_t *bsf_engine_store(bsf_engine_t *e)
{
    return e->store;
}

const bsf_engine_config_t *bsf_engine_config(const bsf_engine_t *e)
{
    return &e->cfg;
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

/* True while this site's own events up to the floor are not all in the store. */
static bool behind_own_log(bsf_engine_t *e)
{
    return e->seq < atomic_load_explicit(&e->seq_floor, memory_order_relaxed);
}

/* The live bindings `b` collides with, as the decide step sees them. */
static int collect_views(bsf_engine_t *e, MDB_txn *txn, const bsf_pcf_binding_t *b,
                         bsf_match_t matches[MAX_CANDIDATES],
                         bsf_binding_view_t views[MAX_CANDIDATES], size_t *n)
{
    int rc = bsf_projection_collect_candidates(&e->store->proj, txn, b, &e->zone, matches,
                                               MAX_CANDIDATES, n);
    for (size_t i = 0; !rc && i < *n; i++)
        views[i] = (bsf_binding_view_t){matches[i].id, &matches[i].binding,
                                        matches[i].record.created_hlc,
                                        matches[i].record.origin_ts_ms,
                                        matches[i].record.sender_ts_ms};
    return rc;
}

bool bsf_engine_refuse_at_reserve(bsf_engine_t *e, bsf_command_t *cmd)
{
    if (!e->at_reserve)
        return false;
    bsf_problem_t p;
    bsf_problem_set(&p, BSF_CAUSE_INSUFFICIENT_STORAGE,
                    "the binding store is full (less than %u%% of it is free): new bindings "
                    "are refused until deregistrations free space",
                    e->cfg.reserve_percent);
    refuse(cmd, &p);
    e->reserve_refusals++;
    return true;
}

bool bsf_engine_behind_own_log(bsf_engine_t *e)
{
    return behind_own_log(e);
}

static int run_register(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    if (bsf_engine_refuse_at_reserve(e, cmd))
        return 0;
    bsf_match_t matches[MAX_CANDIDATES];
    bsf_binding_view_t views[MAX_CANDIDATES];
    size_t n = 0;
    int rc = collect_views(e, txn, &cmd->binding, matches, views, &n);
    if (rc)
        return rc;
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
                          .prior = d.replaced[i]->binding,
                          .reason = d.replaced_reason[i],
                          .has_replaced_by = true,
                          .replaced_by = cmd->id};
        bsf_engine_note_replaced(e, "binding", &d.replaced[i]->id, &cmd->id,
                                 d.replaced_reason[i]);
        if ((rc = emit(e, txn, &ev, NULL)))
            return rc;
    }
    /* The answer's body first: the event and the record copy its bytes. */
    if ((rc = encode_binding(&cmd->binding, &cmd->body)))
        return rc;
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED,
                      .binding_id = cmd->id,
                      .binding = &cmd->binding,
                      .binding_mp = cmd->body.data,
                      .binding_mp_len = cmd->body.size,
                      .origin_ts_ms = cmd->origin_ts_ms,
                      .sender_ts_ms = cmd->sender_ts_ms,
                      .cookie = cmd->cookie,
                      .cookie_len = cmd->cookie_len};
    return emit(e, txn, &ev, &cmd->log_position);
}

/* The live binding cmd->id into *binding (its record in *rec): 0 with *found, after refusing
 * cmd (404) when there is none; or a store error. */
static int load_live(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd, bsf_record_t *rec,
                     bsf_pcf_binding_t *binding, bool *found)
{
    *found = false;
    int rc = bsf_projection_get(&e->store->proj, txn, &cmd->id, rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec->state != BSF_RECORD_LIVE)) {
        bsf_engine_refuse_not_found(cmd);
        return 0;
    }
    if (rc)
        return rc;
    if (bsf_record_decode_binding(rec, &cmd->zone, binding))
        return MDB_CORRUPTED;
    *found = true;
    return 0;
}

void bsf_engine_refuse_not_found(bsf_command_t *cmd)
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
    if (rc || !found)
        return rc;
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
    if ((rc = encode_binding(&updated, &cmd->body)))
        return rc;
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_UPDATED,
                      .binding_id = cmd->id,
                      .binding = &updated,
                      .prior = &current,
                      .binding_mp = cmd->body.data,
                      .binding_mp_len = cmd->body.size,
                      .created_hlc = rec.created_hlc,
                      .origin_ts_ms = rec.origin_ts_ms,
                      .sender_ts_ms = rec.sender_ts_ms,
                      .cookie = cookie,
                      .cookie_len = cookie ? rec.cookie_len : 0};
    return emit(e, txn, &ev, &cmd->log_position);
}

static int run_deregister(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_record_t rec;
    bsf_pcf_binding_t current;
    bool found;
    int rc = load_live(e, txn, cmd, &rec, &current, &found);
    if (rc || !found)
        return rc;
    if (bsf_engine_check_expected(e, txn, cmd, &rec, &rc))
        return rc;
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_DEREGISTERED,
                      .binding_id = cmd->id,
                      .prior = &current,
                      .reason = cmd->reason ? cmd->reason : BSF_REASON_PCF_REQUEST};
    /* The binding's record and pages stay valid until the event below rewrites them. */
    if ((rc = bsf_engine_note_removal(e, txn, &cmd->id, &rec, &current, ev.reason)))
        return rc;
    return emit(e, txn, &ev, &cmd->log_position);
}

/* ---- events of the replicated log ---------------------------------------------------- */

#define MAX_APPLY_POSITIONS 32

typedef struct {
    uint16_t site;
    bool dirty;
    uint64_t seq, hlc;
} site_state_t;

typedef struct {
    site_state_t s[64];
    size_t n;
} site_table_t;

/* The stored state of a remote site, loaded once per command. NULL when the table is full
 * (the caller then reads and writes it directly). */
static int remote_site(bsf_engine_t *e, MDB_txn *txn, site_table_t *t, uint16_t site,
                       site_state_t **out)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->s[i].site == site) {
            *out = &t->s[i];
            return 0;
        }
    if (t->n == sizeof t->s / sizeof t->s[0]) {
        *out = NULL;
        return 0;
    }
    site_state_t *st = &t->s[t->n];
    int rc = bsf_store_load_site_state(e->store, txn, site, &st->seq, &st->hlc);
    if (rc)
        return rc;
    st->site = site;
    st->dirty = false;
    t->n++;
    *out = st;
    return 0;
}

/* A registration from another site was just applied: if it collides with live bindings this
 * site created and wins over them, this site (their only owner) deregisters them. */
static int resolve_cross_site_collision(bsf_engine_t *e, MDB_txn *txn, bsf_apply_batch_t *b,
                                        const bsf_binding_id_t *id)
{
    bsf_match_t matches[MAX_CANDIDATES];
    bsf_binding_view_t views[MAX_CANDIDATES];
    bsf_record_t rec;
    bsf_pcf_binding_t remote;
    size_t n = 0;
    msgpack_zone_clear(&e->zone);
    int rc = bsf_projection_get(&e->store->proj, txn, id, &rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE))
        return 0; /* already deregistered */
    if (rc)
        return rc;
    if (bsf_record_decode_binding(&rec, &e->zone, &remote))
        return MDB_CORRUPTED;
    bsf_binding_view_t rv = {*id, &remote, rec.created_hlc, rec.origin_ts_ms, rec.sender_ts_ms};
    rc = collect_views(e, txn, &remote, matches, views, &n);
    if (rc)
        return rc;
    bsf_decide_config_t dc = {e->cfg.collision_detection};
    bsf_register_decision_t d;
    bsf_decide_replicated_registration(&rv, views, n, e->cfg.site_id, &dc, &d);
    for (size_t i = 0; i < d.n_replaced; i++) {
        if (behind_own_log(e)) {
            b->replace_held++;
            BSF_WARN("engine", "cross-site collision left unresolved: this site is still "
                               "applying its own events from the replicated log");
            continue;
        }
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_DEREGISTERED,
                          .binding_id = d.replaced[i]->id,
                          .prior = d.replaced[i]->binding,
                          .reason = d.replaced_reason[i],
                          .has_replaced_by = true,
                          .replaced_by = *id};
        if ((rc = emit(e, txn, &ev, NULL)))
            return rc;
        b->replaced++;
    }
    return 0;
}

static void refuse_gap(bsf_command_t *cmd, const bsf_apply_position_t *p, uint64_t stored)
{
    bsf_problem_set(&cmd->problem, BSF_CAUSE_SYSTEM_FAILURE,
                    "%s: batch starts at %llu, the store is at %llu", p->source,
                    (unsigned long long)p->from, (unsigned long long)stored);
    cmd->status = BSF_CMD_REFUSED;
    cmd->apply->gap = true;
}

static int run_apply(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    bsf_apply_batch_t *b = cmd->apply;
    uint64_t stored[MAX_APPLY_POSITIONS];
    b->gap = false;
    b->applied = b->skipped = b->replaced = b->replace_held = 0;
    if (b->n_positions > MAX_APPLY_POSITIONS) {
        bsf_problem_set(&cmd->problem, BSF_CAUSE_SYSTEM_FAILURE, "too many positions");
        cmd->status = BSF_CMD_REFUSED;
        return 0;
    }
    int rc;
    for (size_t i = 0; i < b->n_positions; i++) {
        if ((rc = bsf_store_load_position(e->store, txn, b->positions[i].source, &stored[i])))
            return rc;
        if (stored[i] < b->positions[i].from) {
            refuse_gap(cmd, &b->positions[i], stored[i]);
            return 0;
        }
    }
    site_table_t sites = {.n = 0};
    for (size_t i = 0; i < b->n_events; i++) {
        const bsf_event_t *ev = &b->events[i].ev;
        bool own = ev->site == e->cfg.site_id;
        site_state_t *st = NULL, direct;
        bsf_hlc_observe(&e->hlc, ev->hlc);
        if (!own) {
            if ((rc = remote_site(e, txn, &sites, ev->site, &st)))
                return rc;
            if (!st) {
                st = &direct;
                direct.site = ev->site;
                if ((rc = bsf_store_load_site_state(e->store, txn, ev->site, &direct.seq,
                                                    &direct.hlc)))
                    return rc;
            }
        }
        b->events[i].applied = false;
        if (ev->seq <= (own ? e->seq : st->seq)) {
            b->skipped++;
            continue;
        }
        rc = match_notifications(e, txn, ev);
        if (!rc)
            rc = write_event(e, txn, ev, b->events[i].raw, b->events[i].len,
                             &cmd->log_position);
        if (rc)
            return rc;
        b->applied++;
        b->events[i].applied = true;
        e->events_in_batch++;
        if (own) {
            e->seq = ev->seq; /* a store catching up with its own events */
        } else {
            st->seq = ev->seq;
            st->hlc = ev->hlc;
            st->dirty = true;
            if (st == &direct && (rc = bsf_store_save_site_state(e->store, txn, ev->site,
                                                                 ev->seq, ev->hlc)))
                return rc;
            if (ev->type == BSF_EVENT_BINDING_REGISTERED &&
                (rc = resolve_cross_site_collision(e, txn, b, &ev->binding_id)))
                return rc;
            if (ev->type == BSF_EVENT_UE_BINDING_REGISTERED &&
                (rc = bsf_engine_doc_resolve_collision(e, txn, b, &ev->binding_id,
                                                      &bsf_engine_ue_rules)))
                return rc;
            if (ev->type == BSF_EVENT_MBS_BINDING_REGISTERED &&
                (rc = bsf_engine_doc_resolve_collision(e, txn, b, &ev->binding_id,
                                                      &bsf_engine_mbs_rules)))
                return rc;
        }
    }
    for (size_t i = 0; i < sites.n; i++)
        if (sites.s[i].dirty && (rc = bsf_store_save_site_state(e->store, txn, sites.s[i].site,
                                                                sites.s[i].seq, sites.s[i].hlc)))
            return rc;
    for (size_t i = 0; i < b->n_positions; i++)
        if (b->positions[i].to > stored[i] &&
            (rc = bsf_store_save_position(e->store, txn, b->positions[i].source,
                                          b->positions[i].to)))
            return rc;
    return 0;
}

static void refuse_behind(bsf_command_t *cmd)
{
    bsf_problem_t p;
    bsf_problem_set(&p, BSF_CAUSE_NF_CONGESTION,
                    "this site is still applying its own earlier events from the replicated "
                    "log; the request had no effect, retry shortly");
    refuse(cmd, &p);
}

static int run_command(bsf_engine_t *e, MDB_txn *txn, bsf_command_t *cmd)
{
    msgpack_zone_clear(&e->zone);
    bsf_command_reset_outcome(cmd);
    if (cmd->kind == BSF_CMD_APPLY)
        return run_apply(e, txn, cmd);
    if (behind_own_log(e)) {
        refuse_behind(cmd);
        return 0;
    }
    switch (cmd->kind) {
    case BSF_CMD_REGISTER:
        return run_register(e, txn, cmd);
    case BSF_CMD_UPDATE:
        return run_update(e, txn, cmd);
    case BSF_CMD_UE_REGISTER:
    case BSF_CMD_UE_UPDATE:
    case BSF_CMD_UE_DEREGISTER:
        return bsf_engine_doc_run(e, txn, cmd, &bsf_engine_ue_rules);
    case BSF_CMD_MBS_REGISTER:
    case BSF_CMD_MBS_UPDATE:
    case BSF_CMD_MBS_DEREGISTER:
        return bsf_engine_doc_run(e, txn, cmd, &bsf_engine_mbs_rules);
    case BSF_CMD_AUDIT:
        return bsf_engine_run_audit_command(e, txn, cmd);
    case BSF_CMD_SUB_CREATE:
    case BSF_CMD_SUB_REPLACE:
    case BSF_CMD_SUB_DELETE:
    case BSF_CMD_SUB_EXPIRE:
        return bsf_engine_run_sub_command(e, txn, cmd);
    default:
        return run_deregister(e, txn, cmd);
    }
}

/* ---- batches ----------------------------------------------------------------------- */

/* The map or the disk is full. LMDB reports a short write ("filesystem full?") as EIO: taken
 * as full while the filesystem has less than 1 MiB free. An errno may come raw from LMDB or
 * negated by a module boundary (common/error.h): both are read. */
static bool out_of_space(const bsf_engine_t *e, int rc)
{
    if (rc < 0 && rc > -4096)
        rc = -rc;
    if (rc == MDB_MAP_FULL || rc == ENOSPC || rc == EDQUOT)
        return true;
    bsf_store_space_t space;
    return rc == EIO && bsf_store_space(e->store, 0, &space) == 0 && space.fs_free < (1u << 20);
}

static void fail_command(bsf_engine_t *e, bsf_command_t *cmd, int rc)
{
    cmd->status = BSF_CMD_FAILED;
    if (out_of_space(e, rc))
        bsf_problem_set(&cmd->problem, BSF_CAUSE_INSUFFICIENT_STORAGE,
                        "the binding store is full");
    else
        bsf_problem_set(&cmd->problem, BSF_CAUSE_SYSTEM_FAILURE, "the binding store failed: %s",
                        bsf_strerror(rc));
    msgpack_sbuffer_clear(&cmd->body);
}

/* The removals reported to on_removal in this transaction happened, or not. */
static void settle_removals(bsf_engine_t *e, bool committed)
{
    if (e->cfg.removals_settled)
        e->cfg.removals_settled(e->cfg.removal_ctx, committed);
}

/* ---- deletions riding along ----------------------------------------------------------- */

#define RIDE_MIN 32u
#define RIDE_PER_EVENT 2u

/* Under load, log trimming and tombstone collection ride in the command batch's transaction:
 * at most RIDE_MIN + RIDE_PER_EVENT per event of the batch of each, so they keep pace with
 * the writes (two per event against one appended and at most one tombstone), cost no
 * transaction and no syncs of their own, and never take more than that share of the writer.
 * Not while the store is at its reserve, and not for a second after a batch carrying them
 * failed (its commands are then retried without). Returns 0 or an LMDB code. */
static int ride_along(bsf_engine_t *e, MDB_txn *txn)
{
    e->rode = false;
    e->rode_trimmed = e->rode_collected = 0;
    e->rode_allowed = 0;
    if (!e->events_in_batch || e->at_reserve || bsf_clock_mono_ns() < e->ride_off_ns)
        return 0;
    e->rode = true;
    e->rode_quota = RIDE_MIN + RIDE_PER_EVENT * e->events_in_batch;
    uint64_t allowed = atomic_load(&e->trim_allowed);
    int rc = 0;
    if (allowed > e->trimmed_through) {
        e->rode_allowed = allowed;
        rc = bsf_embedded_log_trim(&e->store->log, txn, allowed, e->rode_quota,
                                   &e->rode_trimmed);
    }
    uint64_t now = bsf_clock_wall_ms();
    if (!rc && e->cfg.tombstone_horizon_ms && now >= e->cfg.tombstone_horizon_ms)
        rc = bsf_projection_gc_tombstones(&e->store->proj, txn,
                                          BSF_HLC_FROM_MS(now - e->cfg.tombstone_horizon_ms),
                                          e->rode_quota, &e->rode_collected);
    return rc;
}

/* After the batch's commit (or its abort): what the riding deletions did. */
static void ride_settle(bsf_engine_t *e, bool committed)
{
    if (!e->rode)
        return;
    e->rode = false;
    if (!committed) {
        e->ride_failed = true;
        e->ride_off_ns = bsf_clock_mono_ns() + 1000000000u;
        e->rode_trimmed = e->rode_collected = 0;
        return;
    }
    e->rode_ns = bsf_clock_mono_ns();
    if (e->rode_allowed && e->rode_trimmed < e->rode_quota)
        e->trimmed_through = e->rode_allowed; /* what is left below it is gone or the last */
}

/* Runs the commands in one transaction. On a store error the transaction is aborted and the
 * engine's counters restored; returns the LMDB error (no command took effect). When the log
 * backend refuses the batch, `*refused` is set (and `hook_problem` filled). */
static int run_batch(bsf_engine_t *e, bsf_command_t **cmds, size_t n, uint64_t *commit_ns,
                     bool *refused, bsf_problem_t *hook_problem)
{
    uint64_t seq = e->seq, hlc = e->hlc.last, log_last = e->store->log.last;
    uint64_t reserve_refusals = e->reserve_refusals;
    const bsf_engine_hooks_t *hooks = &e->cfg.hooks;
    MDB_txn *txn;
    *refused = false;
    int rc = mdb_txn_begin(e->store->env, NULL, 0, &txn);
    if (rc)
        return rc;
    e->events_in_batch = 0;
    bsf_notify_list_clear(&e->notify_pending);
    /* The counters' deltas of the batch are written once, not at every event. */
    bsf_counters_defer(txn, e->store->proj.counters);
    for (size_t i = 0; i < n && !rc; i++)
        rc = run_command(e, txn, cmds[i]);
    if (!rc)
        rc = ride_along(e, txn);
    if (!rc)
        rc = bsf_counters_flush(txn);
    bsf_counters_discard();
    if (!rc)
        rc = bsf_store_save_site_state(e->store, txn, e->cfg.site_id, e->seq, e->hlc.last);
    int hook = BSF_ENGINE_HOOK_OK;
    if (!rc && hooks->before_commit) {
        hook = hooks->before_commit(hooks->ctx, txn, seq + 1, e->seq, hook_problem);
        *refused = hook == BSF_ENGINE_HOOK_REFUSE;
    }
    if (!rc && !*refused) {
        uint64_t t0 = bsf_clock_mono_ns();
        rc = mdb_txn_commit(txn);
        *commit_ns = bsf_clock_mono_ns() - t0;
        if (hooks->after_commit)
            hooks->after_commit(hooks->ctx, rc == 0);
        settle_removals(e, rc == 0);
        ride_settle(e, rc == 0);
        bsf_sub_index_settle(&e->subs, rc == 0);
        if (!rc) {
            hand_over_notifications(e);
            return 0;
        }
        if (hook == BSF_ENGINE_HOOK_EXPORTED && e->seq > seq) {
            /* The events are in the replicated log but not here: never reuse their numbers. */
            BSF_ERROR("engine", "events %llu..%llu reached the replicated log but the local "
                                "commit failed (%s); they come back from the log",
                      (unsigned long long)seq + 1, (unsigned long long)e->seq, bsf_strerror(rc));
            bsf_engine_raise_seq_floor(e, e->seq);
        }
    } else {
        mdb_txn_abort(txn);
        settle_removals(e, false);
        ride_settle(e, false);
        bsf_sub_index_settle(&e->subs, false);
    }
    e->seq = seq;
    e->hlc.last = hlc;
    e->store->log.last = log_last;
    e->reserve_refusals = reserve_refusals;
    e->events_in_batch = 0;
    bsf_notify_list_clear(&e->notify_pending); /* what did not happen is not notified */
    return rc;
}

/* Counts one write transaction of `ns` in the stats (under mu). */
static void count_txn(bsf_engine_stats_t *st, uint64_t ns)
{
    static const double bounds[] = BSF_ENGINE_TXN_BOUNDS;
    size_t b = 0;
    while (b < sizeof bounds / sizeof bounds[0] && (double)ns / 1e9 > bounds[b])
        b++;
    st->txn_buckets[b]++;
    st->txn_count++;
    st->txn_ns_total += ns;
}

static void fail_all(bsf_command_t **cmds, size_t n, const bsf_problem_t *problem)
{
    for (size_t i = 0; i < n; i++) {
        cmds[i]->status = BSF_CMD_FAILED;
        cmds[i]->problem = *problem;
        msgpack_sbuffer_clear(&cmds[i]->body);
    }
}

#define SPACE_SCAN_PERIOD_NS 10000000u

/* Decides whether registrations may grow the store, before each batch. Cheap while the map
 * past the file covers the reserve. Nearer to full the free list is counted too: before every
 * batch once less than four reserves were free at the last count, otherwise at most every
 * 10 ms (what is written in 10 ms is far less than the three reserves of margin). */
static void check_space(bsf_engine_t *e)
{
    if (!e->cfg.reserve_percent)
        return;
    uint64_t now = bsf_clock_mono_ns();
    bool scan = e->space_free < 4 * e->reserve_bytes ||
                now - e->space_scanned_ns >= SPACE_SCAN_PERIOD_NS;
    bsf_store_space_t space;
    int rc = bsf_store_space(e->store, scan ? e->reserve_bytes : 0, &space);
    if (rc) {
        BSF_WARN("engine", "cannot measure the store's free space: %s", bsf_strerror(rc));
        return;
    }
    e->reserve_bytes = space.map / 100u * e->cfg.reserve_percent;
    if (space.beyond >= e->reserve_bytes) {
        e->at_reserve = false;
        e->space_free = space.total;
        return;
    }
    if (!scan)
        return; /* keep the last decision until the next count */
    e->space_scanned_ns = now;
    e->space_free = space.total;
    bool was = e->at_reserve;
    e->at_reserve = space.total < e->reserve_bytes;
    if (e->at_reserve != was)
        BSF_WARN("engine", "%s: %llu of %llu bytes free, reserve %llu",
                 e->at_reserve ? "the store is full, new bindings are refused"
                               : "the store has room again, new bindings are accepted",
                 (unsigned long long)space.total, (unsigned long long)space.limit,
                 (unsigned long long)e->reserve_bytes);
}

#define FULL_LOG_PERIOD_NS 10000000000ull

/* While the store is full every batch fails the same way: one line per 10 s with the count. */
static void log_write_failure(bsf_engine_t *e, int rc)
{
    if (!out_of_space(e, rc)) {
        BSF_ERROR("engine", "write transaction failed: %s", bsf_strerror(rc));
        return;
    }
    e->full_failures++;
    uint64_t now = bsf_clock_mono_ns();
    if (e->full_logged_ns && now - e->full_logged_ns < FULL_LOG_PERIOD_NS)
        return;
    BSF_ERROR("engine", "the store is out of space (%s): %llu write transaction(s) refused "
                        "with 507 since the last report",
              bsf_strerror(rc), (unsigned long long)e->full_failures);
    e->full_failures = 0;
    e->full_logged_ns = now;
}

/* The free space is the smaller of the map's and the disk's: say at start when the disk is
 * the bound, since the reserve (a share of the map) then comes out of a smaller space. */
static void warn_small_disk(bsf_store_t *store)
{
    bsf_store_space_t space;
    if (bsf_store_space(store, 0, &space) == 0 && space.limit < space.map)
        BSF_WARN("engine", "the store's filesystem has room for %llu MiB, less than its map "
                           "(store.map_size_mb, %llu MiB): the disk fills up first",
                 (unsigned long long)(space.limit >> 20), (unsigned long long)(space.map >> 20));
}

static void process(bsf_engine_t *e, bsf_command_t **cmds, size_t n)
{
    uint64_t commit_ns = 0;
    bool refused;
    bsf_problem_t hook_problem;
    check_space(e);
    uint64_t t0 = bsf_clock_mono_ns();
    int rc = run_batch(e, cmds, n, &commit_ns, &refused, &hook_problem);
    uint64_t events = e->events_in_batch;
    bool failed = rc != 0 || refused;
    e->ride_failed = false;
    if (refused) {
        /* The log backend refused the whole batch (e.g. Kafka unreachable): retrying the
         * commands one by one would only wait n times. */
        fail_all(cmds, n, &hook_problem);
        events = 0;
    } else if (rc && (n > 1 || e->ride_failed)) {
        /* (a single command is retried once without the deletions that rode with it) */
        /* Isolate the command that failed: the others must not pay for it. */
        for (size_t i = 0; i < n; i++) {
            uint64_t ns = 0;
            bool one_refused;
            int one = run_batch(e, &cmds[i], 1, &ns, &one_refused, &hook_problem);
            if (one_refused)
                fail_all(&cmds[i], 1, &hook_problem);
            else if (one)
                fail_command(e, cmds[i], one);
            commit_ns += ns;
            events += e->events_in_batch;
        }
    } else if (rc) {
        fail_command(e, cmds[0], rc);
    }
    if (rc)
        log_write_failure(e, rc);
    /* one store call, the one-by-one retries of a failed batch included */
    uint64_t txn_ns = bsf_clock_mono_ns() - t0;
    pthread_mutex_lock(&e->mu);
    count_txn(&e->stats, txn_ns);
    e->stats.commands += n;
    e->stats.batches++;
    e->stats.events += events;
    e->stats.log_trimmed += e->rode_trimmed;
    e->stats.tombstones_removed += e->rode_collected;
    e->rode_trimmed = e->rode_collected = 0; /* counted once */
    e->stats.failed_batches += failed;
    e->stats.hook_refusals += refused;
    e->stats.commit_ns_total += commit_ns;
    if (n > e->stats.max_batch_seen)
        e->stats.max_batch_seen = n;
    e->stats.log_position = e->store->log.last;
    e->stats.own_seq = e->seq;
    e->stats.reserve_refusals += e->reserve_refusals;
    e->reserve_refusals = 0;
    e->stats.at_reserve = e->at_reserve;
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < n; i++)
        cmds[i]->done(cmds[i]);
    report_replaced(e, false);
}

#define GC_PERIOD_MS 60000u
#define GC_MAX_PER_TRANSACTION 20000u
#define GC_MAX_BUSY 2000u
#define GC_BUSY_INTERVAL_MS 100u

/* GC_PERIOD_MS, or a quarter of a shorter horizon (at least a second), so that tombstones
 * never outlive the horizon by much more than it. */
static uint64_t gc_period_ms(const bsf_engine_t *e)
{
    uint64_t quarter = e->cfg.tombstone_horizon_ms / 4;
    return quarter >= GC_PERIOD_MS ? GC_PERIOD_MS : quarter < 1000 ? 1000 : quarter;
}

/* Ends a removal's own write transaction `txn` (NULL when it could not begin) after its step
 * returned `rc`: committed when the step removed something, else aborted. Returns rc, or
 * the commit's error. */
static int end_removal(MDB_txn *txn, int rc, size_t removed)
{
    if (!rc && removed)
        return mdb_txn_commit(txn);
    if (txn)
        mdb_txn_abort(txn);
    return rc;
}

/* Removes tombstones past the horizon, in bounded transactions (between command batches, so
 * writes wait at most one of them). */
static size_t collect_tombstones(bsf_engine_t *e, size_t max)
{
    uint64_t now = bsf_clock_wall_ms();
    if (!e->cfg.tombstone_horizon_ms || now < e->cfg.tombstone_horizon_ms)
        return 0;
    uint64_t before = BSF_HLC_FROM_MS(now - e->cfg.tombstone_horizon_ms);
    MDB_txn *txn = NULL;
    size_t removed = 0;
    int rc = mdb_txn_begin(e->store->env, NULL, 0, &txn);
    if (!rc)
        rc = bsf_projection_gc_tombstones(&e->store->proj, txn, before, max, &removed);
    if ((rc = end_removal(txn, rc, removed))) {
        BSF_WARN("engine", "tombstone collection failed: %s", bsf_strerror(rc));
        return 0;
    }
    pthread_mutex_lock(&e->mu);
    e->stats.tombstones_removed += removed;
    pthread_mutex_unlock(&e->mu);
    return removed;
}

/* One collection round; returns when the next is due. Idle: up to GC_MAX_PER_TRANSACTION.
 * Busy (commands queued): GC_MAX_BUSY, so that a write waits at most one short transaction,
 * and again GC_BUSY_INTERVAL_MS later while there is more, so that tombstones leave even
 * when the queue never empties. */
static uint64_t collect_round(bsf_engine_t *e, bool busy)
{
    size_t max = busy ? GC_MAX_BUSY : GC_MAX_PER_TRANSACTION;
    size_t removed = collect_tombstones(e, max);
    uint64_t wait_ms = removed == max ? (busy ? GC_BUSY_INTERVAL_MS : 0) : gc_period_ms(e);
    return bsf_clock_mono_ns() + wait_ms * 1000000u;
}

#define TRIM_MAX_PER_TRANSACTION 5000u
#define TRIM_MIN_INTERVAL_MS 100u
#define TRIM_RIDE_BACKLOG 50000u
#define RIDE_RECENT_NS 100000000u

/* Batches carried deletions in the last RIDE_RECENT_NS (ride_along). */
static bool riding(const bsf_engine_t *e, uint64_t now)
{
    return e->rode_ns && now - e->rode_ns < RIDE_RECENT_NS;
}

/* Log positions allowed to leave (bsf_engine_allow_trim) and not deleted yet: deleted when a
 * full transaction's worth waits, or TRIM_MIN_INTERVAL_MS after the last one (so that a
 * trickle does not cost an fsync per command batch). */
static bool trim_due(bsf_engine_t *e)
{
    uint64_t allowed = atomic_load(&e->trim_allowed);
    if (allowed <= e->trimmed_through)
        return false;
    uint64_t now = bsf_clock_mono_ns();
    if (now < e->trim_retry_ns)
        return false;
    if (riding(e, now)) /* batches trim as they go: only a backlog beyond them */
        return allowed - e->trimmed_through >= TRIM_RIDE_BACKLOG;
    return allowed - e->trimmed_through >= TRIM_MAX_PER_TRANSACTION ||
           now - e->trimmed_ns >= (uint64_t)TRIM_MIN_INTERVAL_MS * 1000000u;
}

/* One bounded transaction deleting the oldest allowed events (between command batches: a
 * write waits at most one of them). */
static void trim_log(bsf_engine_t *e)
{
    uint64_t allowed = atomic_load(&e->trim_allowed);
    MDB_txn *txn = NULL;
    size_t removed = 0;
    e->trimmed_ns = bsf_clock_mono_ns();
    int rc = mdb_txn_begin(e->store->env, NULL, 0, &txn);
    if (!rc)
        rc = bsf_embedded_log_trim(&e->store->log, txn, allowed, TRIM_MAX_PER_TRANSACTION,
                                   &removed);
    if ((rc = end_removal(txn, rc, removed))) {
        BSF_WARN("engine", "log trimming failed: %s", bsf_strerror(rc));
        e->trim_retry_ns = bsf_clock_mono_ns() + 1000000000u;
        return;
    }
    if (removed < TRIM_MAX_PER_TRANSACTION)
        e->trimmed_through = allowed; /* what is left below `allowed` is gone or the last */
    pthread_mutex_lock(&e->mu);
    e->stats.log_trimmed += removed;
    pthread_mutex_unlock(&e->mu);
}

#define EXPIRY_PERIOD_NS 1000000000ull

static void expiry_done(bsf_command_t *cmd)
{
    bsf_engine_t *e = cmd->owner;
    e->expiry_queued = false;
    if (cmd->status != BSF_CMD_OK) /* e.g. the site is behind its own log: later */
        BSF_DEBUG("engine", "expired subscriptions not removed: %s", cmd->problem.detail);
    bsf_command_free(cmd);
}

/* Once a second, between batches: when one of this site's subscriptions has expired, queues
 * a BSF_CMD_SUB_EXPIRE (it runs in a batch like any command, so its removal events ship like
 * the others). At most one is queued at a time; while more remain the next second queues
 * the next one (BSF_SUB_EXPIRE_BATCH each). */
static void queue_expiry(bsf_engine_t *e)
{
    e->next_expiry_ns = bsf_clock_mono_ns() + EXPIRY_PERIOD_NS;
    if (e->expiry_queued ||
        !bsf_engine_sub_expiry_due(e->store, (int64_t)bsf_clock_wall_ms(), e->cfg.site_id))
        return;
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_SUB_EXPIRE);
    if (!cmd)
        return;
    cmd->done = expiry_done;
    cmd->owner = e;
    pthread_mutex_lock(&e->mu);
    if (e->stopping) {
        pthread_mutex_unlock(&e->mu);
        bsf_command_free(cmd);
        return;
    }
    BSF_FIFO_APPEND(e->head, e->tail, cmd, next);
    e->depth++;
    pthread_mutex_unlock(&e->mu);
    e->expiry_queued = true;
}

/* Moves queued commands into batch[n..max_batch); returns the new count. Under mu. */
static size_t take(bsf_engine_t *e, bsf_command_t **batch, size_t n)
{
    size_t before = n;
    while (e->head && n < e->cfg.max_batch) {
        batch[n++] = e->head;
        e->head = e->head->next;
    }
    if (!e->head)
        e->tail = NULL;
    e->depth -= n - before;
    e->stats.queue_depth = e->depth;
    return n;
}

/* The commit window (store.commit_window_us): a batch smaller than commit_window_batch
 * waits, at most the window from now, for more commands, so that one transaction's fsyncs
 * cover them all. Stopping ends the wait. Under mu; returns the batch's new count. */
static size_t gather(bsf_engine_t *e, bsf_command_t **batch, size_t n)
{
    if (!e->cfg.commit_window_us || n >= e->cfg.commit_window_batch)
        return n;
    struct timespec deadline = bsf_deadline_after_ns((uint64_t)e->cfg.commit_window_us * 1000u);
    uint64_t waited_from = bsf_clock_mono_ns();
    while (n < e->cfg.commit_window_batch && !e->stopping) {
        if (e->head) {
            n = take(e, batch, n);
            continue;
        }
        /* submit wakes us only when the batch is full, not at every arrival */
        e->window_need = e->cfg.commit_window_batch - n;
        int rc = bsf_cond_wait_until(&e->cv, &e->mu, &deadline);
        e->window_need = 0;
        if (rc == -ETIMEDOUT)
            break;
    }
    n = take(e, batch, n); /* whatever came with the last wake-up */
    e->stats.window_waits++;
    e->stats.window_wait_ns += bsf_clock_mono_ns() - waited_from;
    return n;
}

static void *engine_main(void *arg)
{
    bsf_engine_t *e = arg;
    pthread_setname_np(pthread_self(), "bsf-engine"); /* per-thread CPU in top, perf, benches */
    bsf_command_t **batch = calloc(e->cfg.max_batch, sizeof *batch);
    if (!batch) {
        BSF_ERROR("engine", "out of memory");
        abort();
    }
    uint64_t next_gc = bsf_clock_mono_ns();
    for (;;) {
        /* Between command batches: at most one bounded trimming and one bounded collection
         * transaction, then the next batch. */
        if (trim_due(e))
            trim_log(e);
        if (e->cfg.tombstone_horizon_ms && bsf_clock_mono_ns() >= next_gc) {
            pthread_mutex_lock(&e->mu);
            bool busy = e->head != NULL;
            pthread_mutex_unlock(&e->mu);
            uint64_t now = bsf_clock_mono_ns();
            /* busy and batches collecting as they go: no transaction of its own */
            next_gc = busy && riding(e, now) ? now + gc_period_ms(e) * 1000000u
                                             : collect_round(e, busy);
        }
        if (bsf_clock_mono_ns() >= e->next_expiry_ns)
            queue_expiry(e);
        pthread_mutex_lock(&e->mu);
        while (!e->head && !e->stopping) {
            if (bsf_clock_mono_ns() >= e->next_expiry_ns)
                break;
            if (e->cfg.tombstone_horizon_ms && bsf_clock_mono_ns() >= next_gc)
                break;
            if (trim_due(e))
                break;
            bsf_cond_wait_ms(&e->cv, &e->mu, 1000);
        }
        if (!e->head && !e->stopping) {
            pthread_mutex_unlock(&e->mu);
            continue; /* something is due */
        }
        if (!e->head) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        size_t n = gather(e, batch, take(e, batch, 0));
        pthread_mutex_unlock(&e->mu);
        process(e, batch, n);
    }
    report_replaced(e, true);
    free(batch);
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------------- */

/* Of the start-up spent filling the subscription cache: small, as the cache also fills on
 * demand and a restart to ready is bounded (issue 16: 1 s at 25M bindings). */
#define WARM_BUDGET_NS 50000000u

/* The subscribed SUPIs / GPSIs from the store's indexes, then the cache filled with the
 * SUPIs' subscriptions while it has room, for WARM_BUDGET_NS at most (a log line with the
 * times taken). */
static int rebuild_subscribed(bsf_engine_t *e, MDB_txn *txn)
{
    uint64_t t0 = bsf_clock_mono_ns();
    int rc = bsf_sub_index_rebuild(&e->subs, e->store, txn);
    uint64_t t1 = bsf_clock_mono_ns();
    size_t warm = 0;
    if (!rc)
        rc = bsf_sub_index_warm(&e->subs, e->store, txn, &e->notify_zone, WARM_BUDGET_NS,
                                &warm);
    if (!rc && e->subs.keys.total)
        BSF_INFO("engine", "%llu subscribed SUPI/GPSI value(s) counted in %.1f ms; the "
                           "subscriptions of %zu SUPI(s) cached in %.1f ms",
                 (unsigned long long)e->subs.keys.total, (double)(t1 - t0) / 1e6, warm,
                 (double)(bsf_clock_mono_ns() - t1) / 1e6);
    return rc;
}

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
    if (e->cfg.commit_window_batch == 0 || e->cfg.commit_window_batch > e->cfg.max_batch)
        e->cfg.commit_window_batch = e->cfg.max_batch;
    e->random_used = sizeof e->random;
    pthread_mutex_init(&e->mu, NULL);
    bsf_cond_init_monotonic(&e->cv);
    msgpack_sbuffer_init(&e->event_buf);
    msgpack_sbuffer_init(&e->scratch);
    if (!msgpack_zone_init(&e->zone, 16384) || !msgpack_zone_init(&e->notify_zone, 16384)) {
        bsf_engine_destroy(e);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    MDB_txn *txn;
    int rc = mdb_txn_begin(store->env, NULL, MDB_RDONLY, &txn);
    bsf_sub_index_init(&e->subs, cfg->notify_cache_bytes, cfg->site_id);
    if (!rc) {
        rc = bsf_store_load_site_state(store, txn, cfg->site_id, &e->seq, &e->hlc.last);
        if (!rc && cfg->notify.deliver)
            rc = rebuild_subscribed(e, txn);
        mdb_txn_abort(txn);
    }
    if (rc) {
        snprintf(err, err_cap, "cannot read the site state or the subscriptions: %s", bsf_strerror(rc));
        bsf_engine_destroy(e);
        return -1;
    }
    check_space(e);
    warn_small_disk(store);
    e->stats.log_position = store->log.last;
    e->stats.own_seq = e->seq;
    e->stats.at_reserve = e->at_reserve;
    *out = e;
    return 0;
}

int bsf_engine_start(bsf_engine_t *e)
{
    int rc = pthread_create(&e->thread, NULL, engine_main, e);
    if (rc == 0)
        e->started = true;
    return -rc;
}

int bsf_engine_submit(bsf_engine_t *e, bsf_command_t *cmd)
{
    cmd->next = NULL;
    cmd->submitted_ns = bsf_clock_mono_ns();
    pthread_mutex_lock(&e->mu);
    if (e->stopping || e->depth >= e->cfg.queue_capacity) {
        int rc = e->stopping ? BSF_ESTOPPED : BSF_EBUSY;
        pthread_mutex_unlock(&e->mu);
        return rc;
    }
    BSF_FIFO_APPEND(e->head, e->tail, cmd, next);
    e->depth++;
    e->stats.queue_depth = e->depth;
    if (!e->window_need || e->depth >= e->window_need)
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
    msgpack_zone_destroy(&e->notify_zone);
    bsf_notify_list_destroy(&e->notify_pending);
    bsf_sub_index_destroy(&e->subs);
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
    out->seq_floor = atomic_load(&e->seq_floor);
}

void bsf_engine_raise_seq_floor(bsf_engine_t *e, uint64_t seq)
{
    uint64_t cur = atomic_load(&e->seq_floor);
    while (cur < seq && !atomic_compare_exchange_weak(&e->seq_floor, &cur, seq))
        ;
}

void bsf_engine_allow_trim(bsf_engine_t *e, uint64_t through)
{
    uint64_t cur = atomic_load(&e->trim_allowed);
    while (cur < through && !atomic_compare_exchange_weak(&e->trim_allowed, &cur, through))
        ;
    pthread_mutex_lock(&e->mu);
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
}
