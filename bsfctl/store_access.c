#include "bsfctl/store_access.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bsfctl/progress.h"
#include "common/error.h"
#include "core/member_parse.h"

int bsfctl_refuse_existing_store(const char *dir)
{
    struct stat st;
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/data.mdb", dir);
    if (stat(probe, &st) != 0)
        return 0;
    fprintf(stderr, "bsfctl: %s already holds a store; give a new directory\n", dir);
    return -1;
}

int bsfctl_open_read(const char *path, bsf_store_t *store, MDB_txn **txn)
{
    char err[512];
    bsf_store_options_t so = {path, 0, true, 126, 0};
    if (bsf_store_open(store, &so, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        return -1;
    }
    int rc = mdb_txn_begin(store->env, NULL, MDB_RDONLY, txn);
    if (rc) {
        fprintf(stderr, "bsfctl: %s\n", bsf_strerror(rc));
        bsf_store_close(store);
        return -1;
    }
    return 0;
}

int bsfctl_parse_time(const char *s, int64_t *ms)
{
    *ms = -1;
    if (!s)
        return 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*s && !*end && v >= 0) {
        *ms = v;
        return 0;
    }
    if (!bsf_text_is_date_time(s, strlen(s)))
        return -1;
    struct tm tm = {0};
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        return -1;
    int64_t t = (int64_t)timegm(&tm) * 1000;
    if (*rest == '.') {
        int64_t frac = 0, scale = 1000;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++) {
            if (scale > 1) {
                scale /= 10;
                frac += (*rest - '0') * scale;
            }
        }
        t += frac;
    }
    if (*rest == '+' || *rest == '-') {
        int off = ((rest[1] - '0') * 10 + (rest[2] - '0')) * 60 + (rest[4] - '0') * 10 +
                  (rest[5] - '0');
        t -= (*rest == '+' ? 1 : -1) * (int64_t)off * 60000;
    }
    *ms = t;
    return 0;
}

void bsfctl_hex(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int bsfctl_print_digest(bsf_store_t *store, MDB_txn *txn, bool json)
{
    uint8_t d[32];
    char hex[65];
    MDB_txn *own = NULL;
    int rc = txn ? 0 : mdb_txn_begin(store->env, NULL, MDB_RDONLY, &own);
    if (!rc)
        rc = bsf_projection_digest(&store->proj, txn ? txn : own, d);
    if (own)
        mdb_txn_abort(own);
    if (rc) {
        fprintf(stderr, "bsfctl: digest failed: %s\n", bsf_strerror(rc));
        return 1;
    }
    bsfctl_hex(d, 32, hex);
    printf(json ? "{\"digest\":\"%s\"}\n" : "%s\n", hex);
    return 0;
}

typedef struct {
    bsf_log_visit_stored_fn visit;
    void *ctx;
    bsfctl_progress_t progress;
} counted_t;

static int counted_visit(void *ctx, uint64_t position, const void *event, size_t len,
                         const void *stored, size_t stored_len)
{
    counted_t *c = ctx;
    bsfctl_progress_add(&c->progress, 1);
    return c->visit(c->ctx, position, event, len, stored, stored_len);
}

int bsfctl_scan_history(const bsfctl_options_t *o, bsf_store_t *store, MDB_txn *txn,
                        bsf_log_visit_stored_fn visit, void *ctx)
{
    /* The events to read: the live log's, or every position with the archive before it. */
    uint64_t events = 0, first = 0;
    if (bsf_embedded_log_stat(&store->log, txn, &events, &first))
        events = 0;
    counted_t c = {visit, ctx, {0}};
    bsfctl_progress_start(&c.progress, "reading", o->archive ? store->log.last : events);
    bsf_log_history_stat_t st;
    int rc = bsf_log_history_scan(o->archive, &store->log, txn, counted_visit, &c, &st);
    bsfctl_progress_end(&c.progress);
    if (rc)
        fprintf(stderr, "bsfctl: reading the %s failed: %s\n",
                o->archive && st.live == 0 ? "archive" : "log", bsf_strerror(rc));
    else if (st.missing)
        fprintf(stderr,
                "bsfctl: %llu event(s) of the history are neither in the log nor in %s "
                "(they left the log by log.retention%s)\n",
                (unsigned long long)st.missing, o->archive ? o->archive : "an archive",
                o->archive ? "" : "; give --archive DIR, the site's log.archive_dir");
    return rc;
}
