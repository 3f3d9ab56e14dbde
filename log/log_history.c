#include "log/log_history.h"

#include <string.h>

#include "log/log_archive.h"

typedef struct {
    bsf_log_visit_stored_fn visit;
    void *ctx;
    uint64_t next;      /* the position expected next */
    bool stopped;
    bsf_log_history_stat_t *stat;
} chain_t;

static int from_archive(void *ctx, uint64_t position, const void *event, size_t len)
{
    chain_t *c = ctx;
    c->stat->missing += position - c->next;
    c->next = position + 1;
    c->stat->archived++;
    return c->visit(c->ctx, position, event, len, NULL, 0);
}

static int from_live(void *ctx, uint64_t position, const void *event, size_t len,
                     const void *stored, size_t stored_len)
{
    chain_t *c = ctx;
    if (position < c->next)
        return 0; /* already visited from the archive */
    c->stat->missing += position - c->next;
    c->next = position + 1;
    c->stat->live++;
    if (c->visit(c->ctx, position, event, len, stored, stored_len)) {
        c->stopped = true;
        return 1;
    }
    return 0;
}

int bsf_log_history_scan(const char *archive_dir, const bsf_embedded_log_t *log, MDB_txn *txn,
                         bsf_log_visit_stored_fn visit, void *ctx,
                         bsf_log_history_stat_t *stat)
{
    bsf_log_history_stat_t local;
    if (!stat)
        stat = &local;
    memset(stat, 0, sizeof *stat);
    chain_t c = {.visit = visit, .ctx = ctx, .next = 1, .stat = stat};
    if (archive_dir) {
        uint64_t last;
        int stopped;
        int rc = bsf_log_archive_scan(archive_dir, 1, from_archive, &c, &last, &stopped);
        if (rc || stopped)
            return rc;
    }
    return bsf_embedded_log_scan_stored(log, txn, c.next, from_live, &c);
}
