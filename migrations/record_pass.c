/* The record pass (see record_pass.h). */
#include "migrations/record_pass.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/error.h"
#include "core/bytes.h"
#include "projections/record.h"

#define STATE_KEY "migrate/records"
#define DONE_KEY "records_format"
#define KEY_MAX 511 /* LMDB's default key size limit */

/* Where the pass stopped: database `db`, after `key` (none: at its first record). */
typedef struct {
    unsigned db;
    uint64_t done;
    uint8_t key[KEY_MAX];
    size_t key_len;
} pass_state_t;

typedef struct {
    MDB_env *env;
    MDB_dbi meta;
    const MDB_dbi *dbis;
    size_t n, batch;
    pass_state_t st;
    uint64_t total, rewritten, resumed_at, t0_ns, next_log_ns, next_log_done;
    uint8_t *buf;
    size_t cap;
} pass_t;

/* Reads whether the pass is done and where it stopped. Returns 0 or an LMDB code. */
static int load_state(pass_t *p, MDB_txn *txn, bool *done)
{
    MDB_val k = {strlen(DONE_KEY), DONE_KEY}, v;
    int rc = mdb_get(txn, p->meta, &k, &v);
    *done = rc == 0 && v.mv_size == 1 && *(uint8_t *)v.mv_data >= BSF_RECORD_FORMAT;
    if (rc && rc != MDB_NOTFOUND)
        return rc;
    memset(&p->st, 0, sizeof p->st);
    k = (MDB_val){strlen(STATE_KEY), STATE_KEY};
    rc = mdb_get(txn, p->meta, &k, &v);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return rc;
    const uint8_t *b = v.mv_data;
    if (v.mv_size < 9 || v.mv_size > 9 + KEY_MAX || b[0] >= p->n)
        return MDB_CORRUPTED;
    p->st.db = b[0];
    p->st.done = bsf_get_be64(b + 1);
    p->st.key_len = v.mv_size - 9;
    memcpy(p->st.key, b + 9, p->st.key_len);
    return 0;
}

static int save_state(pass_t *p, MDB_txn *txn, const pass_state_t *st)
{
    uint8_t b[9 + KEY_MAX];
    b[0] = (uint8_t)st->db;
    bsf_put_be64(b + 1, st->done);
    memcpy(b + 9, st->key, st->key_len);
    MDB_val k = {strlen(STATE_KEY), STATE_KEY}, v = {9 + st->key_len, b};
    return mdb_put(txn, p->meta, &k, &v, 0);
}

/* The last transaction: the pass is done, its position goes. */
static int save_done(pass_t *p, MDB_txn *txn)
{
    uint8_t format = BSF_RECORD_FORMAT;
    MDB_val k = {strlen(DONE_KEY), DONE_KEY}, v = {1, &format};
    int rc = mdb_put(txn, p->meta, &k, &v, 0);
    MDB_val sk = {strlen(STATE_KEY), STATE_KEY};
    if (!rc && (rc = mdb_del(txn, p->meta, &sk, NULL)) == MDB_NOTFOUND)
        rc = 0;
    return rc;
}

/* Writes the record at `key` (value `v`) again in format 3 when it is in format 2. Returns
 * 0 or an LMDB code (MDB_CORRUPTED: no record of a known format). */
static int rewrite(pass_t *p, MDB_txn *txn, MDB_dbi dbi, const pass_state_t *st,
                   const MDB_val *v, bool *changed)
{
    const uint8_t *b = v->mv_data;
    *changed = false;
    if (v->mv_size && b[0] == BSF_RECORD_FORMAT)
        return 0;
    bsf_record_t r;
    if (bsf_record_parse(b, v->mv_size, &r))
        return MDB_CORRUPTED;
    size_t need = BSF_RECORD_HEADER_MAX + r.cookie_len + r.binding_len;
    if (need > p->cap) {
        uint8_t *grown = realloc(p->buf, need);
        if (!grown)
            return -ENOMEM;
        p->buf = grown;
        p->cap = need;
    }
    size_t len = bsf_record_write_header(&r, p->buf);
    if (r.state == BSF_RECORD_LIVE) {
        memcpy(p->buf + len, r.cookie, r.cookie_len);
        len += r.cookie_len;
        memcpy(p->buf + len, r.binding, r.binding_len);
        len += r.binding_len;
    }
    MDB_val k = {st->key_len, (void *)st->key}, nv = {len, p->buf};
    *changed = true;
    return mdb_put(txn, dbi, &k, &nv, 0);
}

/* Up to `*left` records of database st->db after st->key. MDB_NOTFOUND at its end. */
static int walk_db(pass_t *p, MDB_txn *txn, pass_state_t *st, size_t *left)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(txn, p->dbis[st->db], &c);
    if (rc)
        return rc;
    MDB_val k = {st->key_len, st->key}, v;
    rc = mdb_cursor_get(c, &k, &v, st->key_len ? MDB_SET_RANGE : MDB_FIRST);
    if (!rc && st->key_len && k.mv_size == st->key_len &&
        memcmp(k.mv_data, st->key, st->key_len) == 0)
        rc = mdb_cursor_get(c, &k, &v, MDB_NEXT); /* that one was done */
    while (!rc && *left) {
        if (k.mv_size > KEY_MAX) {
            rc = MDB_BAD_VALSIZE;
            break;
        }
        memcpy(st->key, k.mv_data, k.mv_size);
        st->key_len = k.mv_size;
        bool changed;
        if ((rc = rewrite(p, txn, p->dbis[st->db], st, &v, &changed)))
            break;
        p->rewritten += changed; /* counted again after a failed batch: only reported */
        st->done++;
        (*left)--;
        if (!*left)
            break;
        k = (MDB_val){st->key_len, st->key};
        if (changed) /* the put may have moved the page: find the key again */
            rc = mdb_cursor_get(c, &k, &v, MDB_SET);
        if (!rc)
            rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    mdb_cursor_close(c);
    return rc;
}

/* One transaction of up to p->batch records. Returns 0 (*finished when the last database
 * is done) or an LMDB code; p->st moves only when the transaction committed. */
static int run_batch(pass_t *p, bool *finished)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(p->env, NULL, 0, &txn);
    if (rc)
        return rc;
    pass_state_t st = p->st;
    size_t left = p->batch;
    while (!rc && left && st.db < p->n) {
        rc = walk_db(p, txn, &st, &left);
        if (rc == MDB_NOTFOUND) {
            st.db++;
            st.key_len = 0;
            rc = 0;
        }
    }
    *finished = !rc && st.db >= p->n;
    if (!rc)
        rc = *finished ? save_done(p, txn) : save_state(p, txn, &st);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    if ((rc = mdb_txn_commit(txn)) == 0)
        p->st = st;
    return rc;
}

/* A progress line at most once a second or every tenth of the total, and one at the end. */
static void report(pass_t *p, bool end)
{
    uint64_t now = bsf_clock_mono_ns();
    if (!end && now < p->next_log_ns && p->st.done < p->next_log_done)
        return;
    p->next_log_ns = now + 1000000000u;
    p->next_log_done = p->st.done + (p->total / 10 ? p->total / 10 : 1);
    double s = (double)(now - p->t0_ns) / 1e9;
    double rate = s > 0 ? (double)(p->st.done - p->resumed_at) / s : 0;
    if (end)
        BSF_INFO("store", "record migration done: %" PRIu64 " records, %" PRIu64
                 " rewritten in format %d, in %.1f s", p->st.done, p->rewritten,
                 BSF_RECORD_FORMAT, s);
    else
        BSF_INFO("store", "record migration: %" PRIu64 " of %" PRIu64 " records (%.0f %%), "
                 "%.0f records/s", p->st.done, p->total,
                 p->total ? 100.0 * (double)p->st.done / (double)p->total : 100.0, rate);
}

/* The records of every database, and whether the pass is done. Returns 0 or an LMDB code. */
static int prepare(pass_t *p, bool *done)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(p->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return rc;
    rc = load_state(p, txn, done);
    for (size_t i = 0; !rc && i < p->n; i++) {
        MDB_stat s;
        if (!(rc = mdb_stat(txn, p->dbis[i], &s)))
            p->total += s.ms_entries;
    }
    mdb_txn_abort(txn);
    return rc;
}

int bsf_record_pass_run(MDB_env *env, MDB_dbi meta, const MDB_dbi *dbis, size_t n,
                        size_t batch, char *err, size_t err_cap)
{
    pass_t p = {.env = env, .meta = meta, .dbis = dbis, .n = n,
                .batch = batch ? batch : BSF_RECORD_PASS_BATCH};
    bool done = false;
    int rc = n > 8 ? -EINVAL : prepare(&p, &done);
    if (!rc && done)
        return 0;
    bool quiet = !rc && p.total == 0; /* a new or empty store: only the mark */
    if (!rc && !quiet) {
        p.resumed_at = p.st.done;
        p.t0_ns = bsf_clock_mono_ns();
        p.next_log_ns = p.t0_ns + 1000000000u;
        p.next_log_done = p.st.done + (p.total / 10 ? p.total / 10 : 1);
        BSF_INFO("store", "record migration (every record in format %d, %zu per transaction): "
                 "%s at %" PRIu64 " of %" PRIu64 " records", BSF_RECORD_FORMAT, p.batch,
                 p.st.done ? "resuming" : "starting", p.st.done, p.total);
    }
    bool finished = false;
    while (!rc && !finished)
        if (!(rc = run_batch(&p, &finished)) && !finished)
            report(&p, false);
    free(p.buf);
    if (rc) {
        snprintf(err, err_cap, "the record migration stopped at %" PRIu64 " of %" PRIu64
                 " records (the next start resumes there): %s", p.st.done, p.total,
                 bsf_strerror(rc));
        return -1;
    }
    if (!quiet)
        report(&p, true);
    return 0;
}
