#include "log/embedded_log.h"

#include <errno.h>

#include "common/compress.h"
#include "core/bytes.h"

/* A stored value is the event compressed (common/compress.h) behind this tag byte, which
 * msgpack never uses: a value without it is a plain event (an event's first byte is a map
 * header). Events of at most BSF_LOG_PLAIN_MAX bytes are stored plain: their frame would save
 * little (a deregistration is ~100 bytes) and compressing costs the writer ~2 us each. */
#define COMPRESSED_TAG 0xc1

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
    log->last = bsf_get_be64(k.mv_data);
    return 0;
}

int bsf_embedded_log_open(MDB_txn *txn, bsf_embedded_log_t *log, bool create)
{
    int rc = mdb_dbi_open(txn, "log", create ? MDB_CREATE : 0, &log->dbi);
    return rc ? rc : bsf_embedded_log_reload(log, txn);
}

int bsf_embedded_log_frame(const void *event, size_t len, msgpack_sbuffer *out)
{
    if (len <= BSF_LOG_PLAIN_MAX)
        return msgpack_sbuffer_write(out, event, len) ? -ENOMEM : 0;
    char tag = (char)COMPRESSED_TAG;
    return msgpack_sbuffer_write(out, &tag, 1) || bsf_compress_pack(event, len, out) ? -ENOMEM
                                                                                      : 0;
}

int bsf_embedded_log_append_frame(bsf_embedded_log_t *log, MDB_txn *txn, const void *frame,
                                  size_t len, uint64_t *position)
{
    uint8_t key[8];
    bsf_put_be64(key, log->last + 1);
    MDB_val k = {8, key}, v = {len, (void *)frame};
    /* MDB_APPEND fills pages completely: the log is append-only. */
    int rc = mdb_put(txn, log->dbi, &k, &v, MDB_APPEND);
    if (rc)
        return rc;
    log->last++;
    if (position)
        *position = log->last;
    return 0;
}

int bsf_embedded_log_append(bsf_embedded_log_t *log, MDB_txn *txn, const void *event, size_t len,
                            msgpack_sbuffer *tmp, uint64_t *position)
{
    if (len <= BSF_LOG_PLAIN_MAX)
        return bsf_embedded_log_append_frame(log, txn, event, len, position);
    msgpack_sbuffer own;
    msgpack_sbuffer_init(&own);
    msgpack_sbuffer *frame = tmp ? tmp : &own;
    msgpack_sbuffer_clear(frame);
    int rc = bsf_embedded_log_frame(event, len, frame);
    if (!rc)
        rc = bsf_embedded_log_append_frame(log, txn, frame->data, frame->size, position);
    msgpack_sbuffer_destroy(&own);
    return rc;
}

int bsf_log_visit_unstored(void *ctx, uint64_t position, const void *event, size_t len,
                           const void *stored, size_t stored_len)
{
    (void)stored;
    (void)stored_len;
    const bsf_log_unstored_t *u = ctx;
    return u->visit(u->ctx, position, event, len);
}

int bsf_embedded_log_scan(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                          bsf_log_visit_fn visit, void *ctx)
{
    bsf_log_unstored_t u = {visit, ctx};
    return bsf_embedded_log_scan_stored(log, txn, from, bsf_log_visit_unstored, &u);
}

int bsf_embedded_log_scan_stored(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t from,
                                 bsf_log_visit_stored_fn visit, void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, log->dbi, &cur);
    if (rc)
        return rc;
    uint8_t key[8];
    bsf_put_be64(key, from);
    MDB_val k = {8, key}, v;
    msgpack_zone zone;
    if (!msgpack_zone_init(&zone, 4096)) {
        mdb_cursor_close(cur);
        return -ENOMEM;
    }
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        const char *event = v.mv_data;
        size_t len = v.mv_size;
        msgpack_zone_clear(&zone);
        if (k.mv_size != 8 ||
            (len && (uint8_t)event[0] == COMPRESSED_TAG &&
             bsf_compress_unpack(event + 1, len - 1, &zone, &event, &len))) {
            rc = MDB_CORRUPTED;
            break;
        }
        if (visit(ctx, bsf_get_be64(k.mv_data), event, len, v.mv_data, v.mv_size))
            break;
    }
    msgpack_zone_destroy(&zone);
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
        *first = bsf_get_be64(k.mv_data);
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int bsf_embedded_log_trim(bsf_embedded_log_t *log, MDB_txn *txn, uint64_t through, size_t max,
                          size_t *removed)
{
    *removed = 0;
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, log->dbi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    /* One walk: after a delete the cursor rests on the next record, which MDB_NEXT returns
     * (no descent from the root per record). */
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && *removed < max;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 8) {
            rc = MDB_CORRUPTED;
            break;
        }
        uint64_t pos = bsf_get_be64(k.mv_data);
        if (pos > through || pos >= log->last)
            break;
        rc = mdb_cursor_del(cur, 0);
        if (rc)
            break;
        (*removed)++;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}

int bsf_embedded_log_bytes(const bsf_embedded_log_t *log, MDB_txn *txn, uint64_t *bytes)
{
    MDB_stat st;
    int rc = mdb_stat(txn, log->dbi, &st);
    if (!rc)
        *bytes = (uint64_t)(st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages) *
                 st.ms_psize;
    return rc;
}
