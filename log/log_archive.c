#include "log/log_archive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/error.h"
#include "core/bytes.h"

#define ZSTD_LEVEL 3

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct {
    uint64_t first, last, bytes;
} seg_name_t;

/* "log-<20 digits>-<20 digits>.zst" into first/last. Returns 0 or -1. */
static int parse_name(const char *name, seg_name_t *s)
{
    char tail[8];
    unsigned long long a, b;
    if (strlen(name) != 4 + 20 + 1 + 20 + 4 ||
        sscanf(name, "log-%20llu-%20llu%7s", &a, &b, tail) != 3 || strcmp(tail, ".zst") ||
        a == 0 || b < a)
        return -1;
    s->first = a;
    s->last = b;
    return 0;
}

static int cmp_first(const void *a, const void *b)
{
    const seg_name_t *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The segments of `dir`, sorted by first position (*out is the caller's, free()). Removes
 * `.tmp` leftovers when `clean`. Returns the count or a negated errno. */
static long list_segments(const char *dir, bool clean, seg_name_t **out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    seg_name_t *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    long rc = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (clean && len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0 &&
            strncmp(de->d_name, "log-", 4) == 0) {
            unlinkat(dirfd(d), de->d_name, 0);
            continue;
        }
        seg_name_t s;
        if (parse_name(de->d_name, &s))
            continue;
        struct stat sb;
        s.bytes = fstatat(dirfd(d), de->d_name, &sb, 0) == 0 ? (uint64_t)sb.st_size : 0;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            seg_name_t *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                rc = -ENOMEM;
                break;
            }
            v = nv;
        }
        v[n++] = s;
    }
    closedir(d);
    if (rc) {
        free(v);
        return rc;
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_first);
    *out = v;
    return (long)n;
}

static void stat_of(const seg_name_t *v, long n, bsf_log_archive_stat_t *st)
{
    memset(st, 0, sizeof *st);
    for (long i = 0; i < n; i++) {
        if (!st->first)
            st->first = v[i].first;
        if (v[i].last > st->last)
            st->last = v[i].last;
        st->bytes += v[i].bytes;
        st->segments++;
    }
}

int bsf_log_archive_stat(const char *dir, bsf_log_archive_stat_t *st)
{
    seg_name_t *v = NULL;
    long n = list_segments(dir, false, &v);
    if (n < 0)
        return (int)n;
    stat_of(v, n, st);
    free(v);
    return 0;
}

int bsf_log_archive_open(const char *dir, bsf_log_archive_stat_t *st, char *err, size_t err_cap)
{
    if (mkdir(dir, 0750) && errno != EEXIST) {
        snprintf(err, err_cap, "log.archive_dir %s: cannot create it: %s", dir, bsf_strerror(errno));
        return -1;
    }
    seg_name_t *v = NULL;
    long n = list_segments(dir, true, &v);
    if (n < 0) {
        snprintf(err, err_cap, "log.archive_dir %s: cannot read it: %s", dir,
                 bsf_strerror((int)n));
        return -1;
    }
    stat_of(v, n, st);
    free(v);
    return 0;
}

/* ---- writing ------------------------------------------------------------------------- */

void bsf_log_segment_init(bsf_log_segment_t *seg)
{
    memset(seg, 0, sizeof *seg);
}

void bsf_log_segment_free(bsf_log_segment_t *seg)
{
    free(seg->data);
    bsf_log_segment_init(seg);
}

static int reserve(bsf_log_segment_t *seg, size_t more)
{
    if (seg->len + more <= seg->cap)
        return 0;
    size_t cap = seg->cap ? seg->cap : 65536;
    while (cap < seg->len + more)
        cap *= 2;
    unsigned char *d = realloc(seg->data, cap);
    if (!d)
        return -ENOMEM;
    seg->data = d;
    seg->cap = cap;
    return 0;
}

int bsf_log_segment_add(bsf_log_segment_t *seg, uint64_t position, const void *event,
                        size_t len)
{
    if (len > UINT32_MAX)
        return -EINVAL;
    if (!seg->len) {
        if (reserve(seg, BSF_LOG_ARCHIVE_HEADER))
            return -ENOMEM;
        seg->len = BSF_LOG_ARCHIVE_HEADER; /* filled by bsf_log_segment_write */
        seg->first = position;
        seg->count = 0;
    }
    if (reserve(seg, 12 + len))
        return -ENOMEM;
    bsf_put_be64(seg->data + seg->len, position);
    put_be32(seg->data + seg->len + 8, (uint32_t)len);
    memcpy(seg->data + seg->len + 12, event, len);
    seg->len += 12 + len;
    seg->last = position;
    seg->count++;
    return 0;
}

/* Writes `len` bytes to `path` and fsyncs it. Returns 0 or a negated errno. */
static int write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    const char *p = data;
    int rc = 0;
    while (len && !rc) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno != EINTR)
            rc = -errno;
        else if (w > 0) {
            p += w;
            len -= (size_t)w;
        }
    }
    if (!rc && fsync(fd))
        rc = -errno;
    if (close(fd) && !rc)
        rc = -errno;
    return rc;
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) ? -errno : 0;
    close(fd);
    return rc;
}

int bsf_log_segment_write(bsf_log_segment_t *seg, const char *dir, bsf_log_archive_stat_t *st)
{
    if (!seg->count)
        return 0;
    unsigned char *h = seg->data;
    memcpy(h, BSF_LOG_ARCHIVE_MAGIC, 8);
    put_be16(h + 8, BSF_LOG_ARCHIVE_VERSION);
    bsf_put_be64(h + 10, seg->first);
    bsf_put_be64(h + 18, seg->last);
    put_be32(h + 26, seg->count);
    size_t bound = ZSTD_compressBound(seg->len);
    void *z = malloc(bound);
    if (!z)
        return -ENOMEM;
    size_t zlen = ZSTD_compress(z, bound, seg->data, seg->len, ZSTD_LEVEL);
    if (ZSTD_isError(zlen)) {
        free(z);
        return -ENOMEM;
    }
    char final[4096], tmp[4100];
    snprintf(final, sizeof final, "%s/log-%020" PRIu64 "-%020" PRIu64 ".zst", dir, seg->first,
             seg->last);
    snprintf(tmp, sizeof tmp, "%s.tmp", final);
    int rc = write_file(tmp, z, zlen);
    free(z);
    if (!rc && rename(tmp, final))
        rc = -errno;
    if (!rc)
        rc = fsync_dir(dir);
    if (rc) {
        unlink(tmp);
        unlink(final);
        return rc;
    }
    if (!st->first)
        st->first = seg->first;
    if (seg->last > st->last)
        st->last = seg->last;
    st->bytes += zlen;
    st->segments++;
    seg->len = 0;
    seg->count = 0;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------- */

/* The decompressed content of one segment file (*out is the caller's, free()). Returns its
 * length, or a negative code. */
static long read_segment(const char *path, unsigned char **out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    unsigned char *z = NULL;
    size_t zlen = 0, zcap = 0, r;
    do {
        if (zlen == zcap) {
            zcap = zcap ? zcap * 2 : 1 << 16;
            unsigned char *nz = realloc(z, zcap);
            if (!nz) {
                free(z);
                fclose(f);
                return -ENOMEM;
            }
            z = nz;
        }
        r = fread(z + zlen, 1, zcap - zlen, f);
        zlen += r;
    } while (r);
    int ferr = ferror(f);
    fclose(f);
    unsigned long long size = ZSTD_getFrameContentSize(z, zlen);
    if (ferr || size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ||
        size < BSF_LOG_ARCHIVE_HEADER || size > (1ull << 31)) {
        free(z);
        return ferr ? -EIO : BSF_ECORRUPT;
    }
    unsigned char *d = malloc(size);
    size_t got = d ? ZSTD_decompress(d, size, z, zlen) : 0;
    free(z);
    if (!d)
        return -ENOMEM;
    if (ZSTD_isError(got) || got != size) {
        free(d);
        return BSF_ECORRUPT;
    }
    *out = d;
    return (long)size;
}

/* Visits the records of one decompressed segment. Returns 0, 1 (visit stopped) or
 * BSF_ECORRUPT. */
static int visit_segment(const unsigned char *d, size_t len, const seg_name_t *name,
                         uint64_t from, bsf_log_archive_visit_fn visit, void *ctx,
                         uint64_t *last_visited)
{
    if (memcmp(d, BSF_LOG_ARCHIVE_MAGIC, 8) || ((unsigned)d[8] << 8 | d[9]) != BSF_LOG_ARCHIVE_VERSION ||
        bsf_get_be64(d + 10) != name->first || bsf_get_be64(d + 18) != name->last)
        return BSF_ECORRUPT;
    uint32_t count = get_be32(d + 26);
    size_t off = BSF_LOG_ARCHIVE_HEADER;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (len - off < 12)
            return BSF_ECORRUPT;
        uint64_t pos = bsf_get_be64(d + off);
        uint32_t n = get_be32(d + off + 8);
        off += 12;
        if (len - off < n || pos <= prev || pos < name->first || pos > name->last)
            return BSF_ECORRUPT;
        prev = pos;
        if (pos >= from && pos > *last_visited) {
            *last_visited = pos;
            if (visit(ctx, pos, d + off, n))
                return 1;
        }
        off += n;
    }
    return off == len ? 0 : BSF_ECORRUPT;
}

int bsf_log_archive_scan(const char *dir, uint64_t from, bsf_log_archive_visit_fn visit,
                         void *ctx, uint64_t *last_visited, int *stopped)
{
    seg_name_t *v = NULL;
    long n = list_segments(dir, false, &v);
    *last_visited = 0;
    if (stopped)
        *stopped = 0;
    if (n < 0)
        return (int)n;
    int rc = 0;
    for (long i = 0; i < n && !rc; i++) {
        if (v[i].last < from || v[i].last <= *last_visited)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/log-%020" PRIu64 "-%020" PRIu64 ".zst", dir, v[i].first,
                 v[i].last);
        unsigned char *d = NULL;
        long len = read_segment(path, &d);
        if (len < 0) {
            rc = (int)len;
            break;
        }
        rc = visit_segment(d, (size_t)len, &v[i], from, visit, ctx, last_visited);
        free(d);
        if (rc == 1) {
            if (stopped)
                *stopped = 1;
            rc = 0;
            break;
        }
    }
    free(v);
    return rc;
}
