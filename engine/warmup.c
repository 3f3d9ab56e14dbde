#include "engine/warmup.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/diag.h"
#include "engine/memory_limit.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define CHUNK (64u << 20)
#define WALK_RESEEK 65536 /* entries per read snapshot while walking a tree */

struct bsf_warmup {
    pthread_t thread;
    bsf_store_t *store;
    char *base;
    size_t len;  /* whole map: the bytes to populate after the hot trees; 0: none */
    bool hot;    /* walk the trees discovery reads first */
    atomic_bool stop;
};

/* The sub-databases every discovery reads (engine/read.c → projections/lookup.c). */
static const MDB_dbi *hot_dbis(const bsf_projection_t *p, size_t *n)
{
    static MDB_dbi d[6];
    d[0] = p->bindings, d[1] = p->ipv4, d[2] = p->ipv4_route, d[3] = p->ipv6, d[4] = p->mac;
    d[5] = p->counters;
    *n = 6;
    return d;
}

static void populate_map(bsf_warmup_t *w)
{
    uint64_t t0 = bsf_clock_mono_ns();
    size_t done = 0;
    while (done < w->len && !atomic_load(&w->stop)) {
        size_t n = w->len - done < CHUNK ? w->len - done : CHUNK;
        /* the map is MADV_RANDOM (MDB_NORDAHEAD): without WILLNEED a cold file is read
         * 4 KiB at a time (2.4 GB in 282 s on the bench disk) */
        (void)madvise(w->base + done, n, MADV_WILLNEED);
        if (madvise(w->base + done, n, MADV_POPULATE_READ)) {
            BSF_INFO("store", "memory warm-up stopped: madvise not supported here");
            return;
        }
        done += n;
    }
    BSF_INFO("store", "memory warm-up: %zu MiB in %.2f s", done >> 20,
             (double)(bsf_clock_mono_ns() - t0) / 1e9);
}

/* Reads every entry of `dbi`, so that its pages are mapped (and cached). A snapshot is held
 * for WALK_RESEEK entries at a time, so that the writer can reuse freed pages meanwhile.
 * Returns the entries read. */
static uint64_t walk_tree(bsf_warmup_t *w, MDB_dbi dbi)
{
    uint8_t last[512];
    size_t last_len = 0;
    uint64_t seen = 0;
    volatile uint8_t sink = 0;
    for (bool more = true; more && !atomic_load(&w->stop);) {
        MDB_txn *txn;
        MDB_cursor *cur;
        if (mdb_txn_begin(w->store->env, NULL, MDB_RDONLY, &txn))
            return seen;
        if (mdb_cursor_open(txn, dbi, &cur)) {
            mdb_txn_abort(txn);
            return seen;
        }
        MDB_val k = {last_len, last}, v;
        int rc = mdb_cursor_get(cur, &k, &v, last_len ? MDB_SET_RANGE : MDB_FIRST);
        for (unsigned i = 0; rc == 0 && i < WALK_RESEEK; i++) {
            sink ^= v.mv_size ? *(const uint8_t *)v.mv_data : 0; /* the value's page too */
            seen++;
            rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
        }
        more = rc == 0 && k.mv_size <= sizeof last;
        if (more) {
            memcpy(last, k.mv_data, k.mv_size);
            last_len = k.mv_size;
        }
        mdb_cursor_close(cur);
        mdb_txn_abort(txn);
    }
    (void)sink;
    return seen;
}

static void walk_hot_trees(bsf_warmup_t *w)
{
    uint64_t t0 = bsf_clock_mono_ns(), entries = 0;
    size_t n;
    const MDB_dbi *d = hot_dbis(&w->store->proj, &n);
    for (size_t i = 0; i < n && !atomic_load(&w->stop); i++)
        entries += walk_tree(w, d[i]);
    BSF_INFO("store", "memory warm-up of the discovery indexes and records: %llu entries in "
             "%.2f s", (unsigned long long)entries, (double)(bsf_clock_mono_ns() - t0) / 1e9);
}

static void *warm(void *arg)
{
    bsf_warmup_t *w = arg;
    if (w->hot)
        walk_hot_trees(w);
    if (w->len)
        populate_map(w);
    return NULL;
}

/* Bytes in the pages of the hot trees (branch, leaf, overflow), or SIZE_MAX on an error. */
static size_t hot_bytes(bsf_store_t *store)
{
    MDB_txn *txn;
    if (mdb_txn_begin(store->env, NULL, MDB_RDONLY, &txn))
        return SIZE_MAX;
    size_t n, total = 0;
    const MDB_dbi *d = hot_dbis(&store->proj, &n);
    for (size_t i = 0; i < n; i++) {
        MDB_stat st;
        if (mdb_stat(txn, d[i], &st)) {
            total = SIZE_MAX;
            break;
        }
        total += (st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) * st.ms_psize;
    }
    mdb_txn_abort(txn);
    return total;
}

/* Where LMDB mapped the data file. mdb_env_info gives the address only for MDB_FIXEDMAP
 * (NULL otherwise, which left the warm-up off before), so it is read from /proc/self/maps:
 * the mapping of the file's inode. NULL when not found. */
static char *map_base(bsf_store_t *store)
{
    mdb_filehandle_t fd;
    struct stat fs;
    if (mdb_env_get_fd(store->env, &fd) || fstat(fd, &fs))
        return NULL;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return NULL;
    char line[4096];
    unsigned long long lo = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long long start, end, offset, inode;
        unsigned maj, min;
        char perms[8];
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &offset, &maj,
                   &min, &inode) == 7 &&
            inode == (unsigned long long)fs.st_ino && offset == 0 &&
            makedev(maj, min) == fs.st_dev) {
            lo = start;
            found = true;
        }
    }
    fclose(f);
    return found ? (char *)(uintptr_t)lo : NULL;
}

bsf_warmup_t *bsf_warmup_start(bsf_store_t *store)
{
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_info(store->env, &info) || mdb_env_stat(store->env, &st))
        return NULL;
    char *base = info.me_mapaddr ? info.me_mapaddr : map_base(store);
    if (!base)
        return NULL;
    size_t used = (size_t)(info.me_last_pgno + 1) * st.ms_psize;
    size_t memory = bsf_memory_limit();
    if (used < (1u << 20) || !memory)
        return NULL;
    bsf_warmup_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->store = store;
    w->base = base;
    /* First what discovery reads, when it fits in three quarters of the memory (on a cold
     * page cache the whole map takes minutes: 14 M bindings served at 16 us after the
     * 2.6 GB of these trees, 36 us while 7 GB were populated in file order); then the
     * whole map when it fits in half. Never push other work (or the rest of the store) out
     * for pages that registrations alone touch. */
    w->hot = hot_bytes(store) <= memory / 4 * 3;
    w->len = used <= memory / 2 ? used : 0;
    if (!w->hot && !w->len) {
        BSF_INFO("store", "memory warm-up skipped: the discovery trees do not fit in %zu MiB",
                 memory >> 20);
        free(w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, warm, w)) {
        free(w);
        return NULL;
    }
    return w;
}

void bsf_warmup_stop(bsf_warmup_t *w)
{
    if (!w)
        return;
    atomic_store(&w->stop, true);
    pthread_join(w->thread, NULL);
    free(w);
}
