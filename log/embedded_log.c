#include "log/embedded_log.h"

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

int bsf_embedded_log_reload(bsf_embedded_log_t *log, MDB_txn *txn)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, log->dbi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND) {
        log->last = 0;
        return 0;
    }
    if (rc)
        return rc;
    if (k.mv_size != 8)
        return MDB_CORRUPTED;
    log->last = get_be64(k.mv_data);
    return 0;
}

int bsf_embedded_log_open(MDB_txn *txn, bsf_embedded_log_t *log, bool create)
{
    int rc = mdb_dbi_open(txn, "log", create ? MDB_CREATE : 0, &log->dbi);
    return rc ? rc : bsf_embedded_log_reload(log, txn);
}

int bsf_embedded_log_append(bsf_embedded_log_t *log, MDB_txn *txn, const void *event, size_t len,
                            uint64_t *position)
{
    uint8_t key[8];
    put_be64(key, log->last + 1);
    MDB_val k = {8, key}, v = {len, (void *)event};
    /* MDB_APPEND fills pages completely: the log is append-only. */
    int rc = mdb_put(txn, log->dbi, &k, &v, MDB_APPEND);
    if (rc)
        return rc;
    log->last++;
    if (position)
        *position = log->last;
    return 0;
}

int bsf_embedded_log_scan(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                          bsf_log_visit_fn visit, void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, log->dbi, &cur);
    if (rc)
        return rc;
    uint8_t key[8];
    put_be64(key, from);
    MDB_val k = {8, key}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 8) {
            rc = MDB_CORRUPTED;
            break;
        }
        if (visit(ctx, get_be64(k.mv_data), v.mv_data, v.mv_size))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}

int bsf_embedded_log_stat(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t *events,
                          uint64_t *first)
{
    MDB_stat st;
    int rc = mdb_stat(txn, log->dbi, &st);
    if (rc)
        return rc;
    *events = st.ms_entries;
    *first = 0;
    MDB_cursor *cur;
    rc = mdb_cursor_open(txn, log->dbi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    if (rc == 0 && k.mv_size == 8)
        *first = get_be64(k.mv_data);
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}
