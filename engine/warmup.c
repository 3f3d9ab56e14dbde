#include "engine/warmup.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/diag.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define CHUNK (64u << 20)

struct bsf_warmup {
    pthread_t thread;
    char *base;
    size_t len;
    atomic_bool stop;
};

static void *warm(void *arg)
{
    bsf_warmup_t *w = arg;
    uint64_t t0 = bsf_clock_mono_ns();
    size_t done = 0;
    while (done < w->len && !atomic_load(&w->stop)) {
        size_t n = w->len - done < CHUNK ? w->len - done : CHUNK;
        if (madvise(w->base + done, n, MADV_POPULATE_READ)) {
            BSF_INFO("store", "memory warm-up stopped: madvise not supported here");
            return NULL;
        }
        done += n;
    }
    BSF_INFO("store", "memory warm-up: %zu MiB in %.2f s", done >> 20,
             (double)(bsf_clock_mono_ns() - t0) / 1e9);
    return NULL;
}

bsf_warmup_t *bsf_warmup_start(bsf_store_t *store)
{
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_info(store->env, &info) || mdb_env_stat(store->env, &st) || !info.me_mapaddr)
        return NULL;
    size_t used = (size_t)(info.me_last_pgno + 1) * st.ms_psize;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    /* Only when the data fits in half of the memory: never push other work out. */
    if (used < (1u << 20) || pages <= 0 || page <= 0 || used > (size_t)pages * (size_t)page / 2)
        return NULL;
    bsf_warmup_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->base = info.me_mapaddr;
    w->len = used;
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
