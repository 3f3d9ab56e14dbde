/* bsfctl digest, stats and rebuild. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bsfctl/apply_pipeline.h"
#include "bsfctl/bsfctl.h"
#include "bsfctl/store_access.h"
#include "common/error.h"
#include "common/clock.h"
#include "projections/mbs_projection.h"
#include "projections/ue_projection.h"

int bsfctl_digest(const bsfctl_options_t *o)
{
    bsf_store_t store;
    MDB_txn *txn;
    if (bsfctl_open_read(o->store, &store, &txn))
        return 1;
    int rc = bsfctl_print_digest(&store, txn, o->json);
    mdb_txn_abort(txn);
    bsf_store_close(&store);
    return rc;
}

/* ---- stats ------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    MDB_dbi dbi;
} named_dbi_t;

static uint64_t db_bytes(const MDB_stat *st)
{
    return (uint64_t)st->ms_psize *
           (st->ms_branch_pages + st->ms_leaf_pages + st->ms_overflow_pages);
}

int bsfctl_stats(const bsfctl_options_t *o)
{
    bsf_store_t store;
    MDB_txn *txn;
    if (bsfctl_open_read(o->store, &store, &txn))
        return 1;
    const bsf_projection_t *p = &store.proj;
    named_dbi_t dbs[] = {{"bindings", p->bindings}, {"ix_ipv4", p->ipv4},
                         {"ix_ipv4_route", p->ipv4_route}, {"ix_ipv6", p->ipv6},
                         {"ix_mac", p->mac}, {"ix_supi", p->supi}, {"ix_gpsi", p->gpsi},
                         {"ix_dnn", p->dnn}, {"ix_tombstones", p->tombstones},
                         {"counters", p->counters}, {"log", store.log.dbi}, {"meta", store.meta},
                         {"ue_bindings", p->ue_bindings}, {"ix_ue_supi", p->ue_supi},
                         {"ix_ue_gpsi", p->ue_gpsi}, {"mbs_bindings", p->mbs_bindings},
                         {"ix_mbs_session", p->mbs_session}, {"audit", p->audit},
                         {"subscriptions", p->subscriptions}, {"ix_sub_supi", p->sub_supi},
                         {"ix_sub_gpsi", p->sub_gpsi}, {"ix_sub_expiry", p->sub_expiry}};
    size_t n = sizeof dbs / sizeof dbs[0];
    enum { LOG = 10 }; /* index of "log" above */
    uint64_t live = bsf_projection_counter(p, txn, "total");
    uint64_t live_ue = bsf_projection_counter(p, txn, BSF_UE_COUNTER_TOTAL);
    uint64_t live_mbs = bsf_projection_counter(p, txn, BSF_MBS_COUNTER_TOTAL);
    uint64_t projection_bytes = 0, log_bytes = 0, entries[24] = {0}, bytes[24] = {0};
    /* a schema-2 store has none of the last five yet (the audit, then subscriptions) */
    if (!p->has_subscriptions)
        n -= 4;
    if (!p->has_audit)
        n--;
    for (size_t i = 0; i < n; i++) {
        MDB_stat st;
        if (mdb_stat(txn, dbs[i].dbi, &st) == 0) {
            entries[i] = st.ms_entries;
            bytes[i] = db_bytes(&st);
        }
        if (dbs[i].dbi == store.log.dbi)
            log_bytes = bytes[i];
        else if (dbs[i].dbi != store.meta)
            projection_bytes += bytes[i];
    }
    uint64_t file = bsf_store_file_bytes(&store);
    if (o->json) {
        printf("{\"liveBindings\":%llu,\"liveUeBindings\":%llu,\"liveMbsBindings\":%llu,"
               "\"records\":%llu,\"events\":%llu,\"logPosition\":%llu,"
               "\"fileBytes\":%llu,\"projectionBytes\":%llu,\"logBytes\":%llu,\"databases\":{",
               (unsigned long long)live, (unsigned long long)live_ue,
               (unsigned long long)live_mbs,
               (unsigned long long)entries[0],
               (unsigned long long)entries[LOG], (unsigned long long)store.log.last,
               (unsigned long long)file, (unsigned long long)projection_bytes,
               (unsigned long long)log_bytes);
        for (size_t i = 0; i < n; i++)
            printf("%s\"%s\":{\"entries\":%llu,\"bytes\":%llu}", i ? "," : "", dbs[i].name,
                   (unsigned long long)entries[i], (unsigned long long)bytes[i]);
        printf("}}\n");
    } else {
        printf("live bindings      %llu\n", (unsigned long long)live);
        printf("live UE bindings   %llu\n", (unsigned long long)live_ue);
        printf("live MBS bindings  %llu\n", (unsigned long long)live_mbs);
        printf("binding records    %llu (live and tombstones)\n", (unsigned long long)entries[0]);
        printf("events in the log  %llu (last position %llu)\n", (unsigned long long)entries[LOG],
               (unsigned long long)store.log.last);
        printf("data file          %llu bytes\n", (unsigned long long)file);
        printf("projections        %llu bytes", (unsigned long long)projection_bytes);
        if (live)
            printf(" (%.0f per live binding)", (double)projection_bytes / (double)live);
        printf("\nlog                %llu bytes", (unsigned long long)log_bytes);
        if (entries[LOG])
            printf(" (%.0f per event)", (double)log_bytes / (double)entries[LOG]);
        printf("\n");
        for (size_t i = 0; i < n; i++)
            printf("  %-14s %10llu entries %12llu bytes\n", dbs[i].name,
                   (unsigned long long)entries[i], (unsigned long long)bytes[i]);
    }
    mdb_txn_abort(txn);
    bsf_store_close(&store);
    return 0;
}

/* ---- rebuild ----------------------------------------------------------------------- */

#define REBUILD_BATCH 20000

typedef struct {
    bsfctl_pipeline_t *pl;
    msgpack_sbuffer tmp;
    uint64_t events;
    int err;
    uint64_t start_ns;
} rebuild_t;

/* Prepares each event here; the pipeline's writer writes it (bsfctl/apply_pipeline.h). */
static int rebuild_visit(void *ctx, uint64_t position, const void *data, size_t len,
                         const void *stored, size_t stored_len)
{
    rebuild_t *r = ctx;
    char err[256];
    msgpack_zone *zone;
    bsfctl_item_t *it = bsfctl_pipeline_next(r->pl, &zone);
    if (!it)
        return 1; /* the writer failed: bsfctl_pipeline_finish says why */
    /* The event's own bytes go to the new log: what was logged is kept exactly, and a live
     * log's event as it is stored (compressing it again was a fifth of a rebuild's CPU). The
     * binding's frame is made here: the writer's LMDB work is the longer of the two. */
    if (bsf_prepared_event_make(data, len, stored, stored_len, true, zone, &r->tmp, &it->pe,
                                err, sizeof err)) {
        fprintf(stderr, "bsfctl: event at position %llu is unreadable: %s\n",
                (unsigned long long)position, err);
        r->err = MDB_CORRUPTED;
        return 1;
    }
    it->has_event = true;
    it->position = position;
    bsfctl_pipeline_push(r->pl);
    if (++r->events % 1000000 == 0 && isatty(2))
        fprintf(stderr, "\r%llu events", (unsigned long long)r->events);
    return 0;
}

/* Copies the per-site sequence numbers and clocks so the rebuilt store can serve. */
static int copy_meta(bsf_store_t *src, MDB_txn *stxn, bsf_store_t *dst, MDB_txn *dtxn)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(stxn, src->meta, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
        if (k.mv_size > 5 && memcmp(k.mv_data, "site/", 5) == 0 &&
            (rc = mdb_put(dtxn, dst->meta, &k, &v, 0)))
            break;
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int bsfctl_map_size(const bsfctl_options_t *o, uint64_t fallback_mb, uint64_t *out_mb)
{
    *out_mb = fallback_mb;
    if (!o->map_size)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(o->map_size, &end, 10);
    if (errno || *end || end == o->map_size || o->map_size[0] == '-' || v < 16 ||
        v > 1048576) {
        fprintf(stderr, "bsfctl: --map-size: '%s' is not a size in MiB in 16..1048576\n",
                o->map_size);
        return -1;
    }
    *out_mb = v;
    return 0;
}

int bsfctl_rebuild(const bsfctl_options_t *o)
{
    if (!o->out) {
        fprintf(stderr, "bsfctl: rebuild needs --out DIR (a new, empty directory)\n");
        return 2;
    }
    if (bsfctl_refuse_existing_store(o->out))
        return 2;
    bsf_store_t src, dst;
    MDB_txn *stxn;
    if (bsfctl_open_read(o->store, &src, &stxn))
        return 1;
    char err[512];
    MDB_envinfo info;
    mdb_env_info(src.env, &info);
    /* Address space only (the file grows as needed): twice the source's, so that a store
     * near its map limit rebuilds, with its log, in large transactions. */
    uint64_t map_mb;
    if (bsfctl_map_size(o, ((uint64_t)info.me_mapsize >> 20) * 2 + 1, &map_mb)) {
        mdb_txn_abort(stxn);
        bsf_store_close(&src);
        return 2;
    }
    bsf_store_options_t so = {o->out, map_mb, false, 126, 0};
    if (bsf_store_open(&dst, &so, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        mdb_txn_abort(stxn);
        bsf_store_close(&src);
        return 1;
    }
    rebuild_t r = {.start_ns = bsf_clock_mono_ns()};
    msgpack_sbuffer_init(&r.tmp);
    MDB_txn *dtxn;
    int rc = mdb_txn_begin(dst.env, NULL, 0, &dtxn);
    if (!rc && (rc = copy_meta(&src, stxn, &dst, dtxn)))
        mdb_txn_abort(dtxn);
    if (!rc)
        rc = mdb_txn_commit(dtxn);
    bsfctl_pipeline_hooks_t hooks = {NULL, NULL, NULL};
    if (!rc && !(r.pl = bsfctl_pipeline_start(&dst, REBUILD_BATCH, &hooks, err, sizeof err)))
        rc = ENOMEM;
    if (!rc) {
        rc = bsfctl_scan_history(o, &src, stxn, rebuild_visit, &r);
        int written = bsfctl_pipeline_finish(r.pl);
        if (!rc)
            rc = r.err ? r.err : written;
    }
    double secs = (double)(bsf_clock_mono_ns() - r.start_ns) / 1e9;
    msgpack_sbuffer_destroy(&r.tmp);
    mdb_txn_abort(stxn);
    bsf_store_close(&src);
    int out = 1;
    if (rc) {
        fprintf(stderr, "bsfctl: rebuild failed: %s%s\n", bsf_strerror(rc),
                rc == MDB_MAP_FULL ? " (give a larger --map-size)" : "");
    } else {
        fprintf(stderr, "%llu events replayed in %.2f s (%.0f events/s)\n",
                (unsigned long long)r.events, secs, secs > 0 ? (double)r.events / secs : 0.0);
        out = bsfctl_print_digest(&dst, NULL, o->json);
    }
    bsf_store_close(&dst);
    return out;
}
