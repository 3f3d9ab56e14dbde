#include "common/compress.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/pcf_binding.h"

#define LEVEL -1 /* small documents: as small as level 1 here, at a third of the CPU */
#define MAX_DOCUMENT_BYTES (256u << 10) /* far above any binding or event the rules allow */

/* Built once from code, never changed afterwards: shared read-only by every thread. */
static pthread_once_t dict_once = PTHREAD_ONCE_INIT;
static msgpack_sbuffer dict; /* the dictionary's bytes */
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

/* The dictionary: member names as msgpack strings, then a typical binding in canonical
 * msgpack (zstd favours the end of a raw dictionary, where the most common content goes).
 * Built from code, so every site running this version has the same dictionary. */
static int pack_dictionary(msgpack_sbuffer *out)
{
    static const char *const names[] = {
        "ipv6Prefix", "addIpv6Prefixes", "ipDomain", "macAddr48", "addMacAddrs", "pcfSmFqdn",
        "pcfSmIpEndPoints", "suppFeat", "pcfSetId", "recoveryTime", "paraCom", "bindLevel",
        "NF_INSTANCE", "NF_SET", "ipv4FrameRouteList", "ipv6FrameRouteList", "ipv6Address",
        "transport", "TCP", "ims", "2001:db8::/64",
        /* event envelopes (docs/events.md) */
        "BindingDeregistered", "BindingUpdated", "pcf_request", "replaced_by_collision",
        "reregistered", "replacedBy", "reason", "cookie", "createdHlc", "originTs",
        "senderTs", "bindingId", "binding", "hlc", "seq", "site", "type", "BindingRegistered"};
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (msgpack_pack_str(&pk, strlen(names[i])) ||
            msgpack_pack_str_body(&pk, names[i], strlen(names[i])))
            return -1;
    bsf_ip_end_point_t ep = {.has_ipv4 = true, .ipv4 = {{192, 0, 2, 1}}, .has_port = true,
                             .port = 8080};
    bsf_pcf_binding_t b = {
        .supi = "imsi-001010000000000",
        .gpsi = "msisdn-490000000000",
        .has_ipv4 = true,
        .ipv4 = {{10, 0, 0, 1}},
        .dnn = "internet",
        .has_snssai = true,
        .snssai = {1, true, 1},
        .pcf_fqdn = "pcf1.example.com",
        .pcf_ip_end_points = {1, &ep},
        .pcf_diam_host = "pcf1.diam.example.com",
        .pcf_diam_realm = "example.com",
        .pcf_id = "00000000-0000-4000-8000-000000000000",
    };
    return bsf_pcf_binding_encode(&b, &pk);
}

static void build_dictionaries(void)
{
    msgpack_sbuffer_init(&dict);
    if (pack_dictionary(&dict))
        abort();
    ddict = ZSTD_createDDict(dict.data, dict.size);
    if (!ddict || pthread_key_create(&cctx_key, free_cctx) ||
        pthread_key_create(&dctx_key, free_dctx))
        abort(); /* start-up: nothing can work without them */
}

/* A compression context sized for documents of a few KB: small window and tables, so that
 * starting a frame costs little (with the default level-1 tables, setting up each frame
 * cost more than compressing a binding). The context keeps its own copy of the dictionary,
 * prepared once for these parameters and reused by every frame. */
static ZSTD_CCtx *new_cctx(void)
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
        rc = ZSTD_CCtx_loadDictionary(cctx, dict.data, dict.size);
    if (ZSTD_isError(rc)) {
        ZSTD_freeCCtx(cctx);
        return NULL;
    }
    return cctx;
}

int bsf_compress_pack(const char *mp, size_t len, msgpack_sbuffer *out)
{
    pthread_once(&dict_once, build_dictionaries);
    ZSTD_CCtx *cctx = pthread_getspecific(cctx_key);
    if (!cctx) {
        if (!(cctx = new_cctx()) || pthread_setspecific(cctx_key, cctx)) {
            ZSTD_freeCCtx(cctx);
            return -1;
        }
    }
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
    pthread_once(&dict_once, build_dictionaries);
    ZSTD_DCtx *dctx = pthread_getspecific(dctx_key);
    if (!dctx) {
        if (!(dctx = ZSTD_createDCtx()) || pthread_setspecific(dctx_key, dctx)) {
            ZSTD_freeDCtx(dctx);
            return -1;
        }
    }
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
