#include "common/compress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define LEVEL -1 /* small documents: as small as level 1 here, at a third of the CPU */
#define MAX_DOCUMENT_BYTES (256u << 10) /* far above any binding or event the rules allow */

/* Set once (bsf_compress_set_dictionary), never changed afterwards: shared read-only by every
 * thread once dict_ready is seen. */
static pthread_mutex_t dict_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool dict_ready;
static char *dict; /* the dictionary's bytes */
static size_t dict_len;
static ZSTD_DDict *ddict;
/* Per-thread (de)compression contexts, freed when their thread exits. */
static pthread_key_t cctx_key, dctx_key;

static void free_cctx(void *p)
{
    ZSTD_freeCCtx(p);
}

static void free_dctx(void *p)
{
    ZSTD_freeDCtx(p);
}

int bsf_compress_set_dictionary(const void *bytes, size_t len)
{
    int rc = 0;
    pthread_mutex_lock(&dict_lock);
    if (atomic_load_explicit(&dict_ready, memory_order_relaxed)) {
        rc = len == dict_len && memcmp(bytes, dict, len) == 0 ? 0 : -1;
    } else if (!len || !(dict = malloc(len))) {
        rc = -1;
    } else {
        memcpy(dict, bytes, len);
        dict_len = len;
        ddict = ZSTD_createDDict(dict, dict_len);
        if (!ddict || pthread_key_create(&cctx_key, free_cctx) ||
            pthread_key_create(&dctx_key, free_dctx)) {
            /* keys are never deleted: a key created before a later failure stays unused */
            ZSTD_freeDDict(ddict);
            ddict = NULL;
            free(dict);
            dict = NULL;
            rc = -1;
        } else {
            atomic_store_explicit(&dict_ready, true, memory_order_release);
        }
    }
    pthread_mutex_unlock(&dict_lock);
    return rc;
}

static bool have_dictionary(void)
{
    return atomic_load_explicit(&dict_ready, memory_order_acquire);
}

/* A compression context sized for documents of a few KB: small window and tables, so that
 * starting a frame costs little (with the default level-1 tables, setting up each frame
 * cost more than compressing a binding). The context keeps its own copy of the dictionary,
 * prepared once for these parameters and reused by every frame. */
static void *new_cctx(void)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!cctx)
        return NULL;
    size_t rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, LEVEL);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 15);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, 11);
    /* No checksum (LMDB pages are not a transport), no dictionary id (none to check). */
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_loadDictionary(cctx, dict, dict_len);
    if (ZSTD_isError(rc)) {
        ZSTD_freeCCtx(cctx);
        return NULL;
    }
    return cctx;
}

static void *new_dctx(void)
{
    return ZSTD_createDCtx();
}

/* This thread's context under `key`, made with `make` on its first use: NULL when it cannot
 * be made or kept (then it is freed with `drop`). */
static void *thread_ctx(pthread_key_t key, void *(*make)(void), void (*drop)(void *))
{
    void *ctx = pthread_getspecific(key);
    if (!ctx && (ctx = make()) && pthread_setspecific(key, ctx)) {
        drop(ctx);
        ctx = NULL;
    }
    return ctx;
}

int bsf_compress_pack(const char *mp, size_t len, msgpack_sbuffer *out)
{
    if (!have_dictionary())
        return -1;
    ZSTD_CCtx *cctx = thread_ctx(cctx_key, new_cctx, free_cctx);
    if (!cctx)
        return -1;
    size_t bound = ZSTD_compressBound(len);
    char stack[2048];
    char *buf = bound <= sizeof stack ? stack : malloc(bound);
    if (!buf)
        return -1;
    size_t n = ZSTD_compress2(cctx, buf, bound, mp, len);
    int rc = ZSTD_isError(n) ? -1 : msgpack_sbuffer_write(out, buf, n);
    if (buf != stack)
        free(buf);
    return rc;
}

int bsf_compress_unpack(const char *frame, size_t len, msgpack_zone *zone, const char **mp,
                            size_t *mp_len)
{
    if (!have_dictionary())
        return -1;
    ZSTD_DCtx *dctx = thread_ctx(dctx_key, new_dctx, free_dctx);
    if (!dctx)
        return -1;
    unsigned long long size = ZSTD_getFrameContentSize(frame, len);
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size == 0 ||
        size > MAX_DOCUMENT_BYTES)
        return -1;
    char *dst = msgpack_zone_malloc(zone, (size_t)size);
    if (!dst)
        return -1;
    size_t n = ZSTD_decompress_usingDDict(dctx, dst, (size_t)size, frame, len, ddict);
    if (ZSTD_isError(n) || n != size)
        return -1;
    *mp = dst;
    *mp_len = n;
    return 0;
}
