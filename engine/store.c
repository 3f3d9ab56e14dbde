#include "engine/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "common/compress.h"
#include "common/error.h"
#include "core/bytes.h"
#include "core/doc_dictionary.h"
#include "engine/read_pool.h"
#include "migrations/record_pass.h"
#include "migrations/schema.h"

/* common/error.h keeps LMDB's codes by value so that common/ needs no lmdb.h: hold them to
 * lmdb.h's. */
#define BSF_CHECK_LMDB_ROW(name, value, text) _Static_assert((name) == (value), #name);
BSF_LMDB_ERROR_MAP(BSF_CHECK_LMDB_ROW)
#undef BSF_CHECK_LMDB_ROW
_Static_assert(MDB_LAST_ERRCODE == MDB_BAD_DBI, "lmdb.h has codes common/error.h lacks");

static int fail(char *err, size_t cap, const char *what, int rc)
{
    snprintf(err, cap, "%s: %s", what, bsf_strerror(rc));
    return -1;
}

/* Every document in a store is compressed with core's dictionary (set once per process). */
static int use_doc_dictionary(void)
{
    msgpack_sbuffer dict;
    msgpack_sbuffer_init(&dict);
    int rc = bsf_doc_dictionary_pack(&dict) || bsf_compress_set_dictionary(dict.data, dict.size);
    msgpack_sbuffer_destroy(&dict);
    return rc ? -1 : 0;
}

int bsf_store_open(bsf_store_t *s, const bsf_store_options_t *opt, char *err, size_t err_cap)
{
    memset(s, 0, sizeof *s);
    if (use_doc_dictionary()) {
        snprintf(err, err_cap, "cannot prepare the compression dictionary: out of memory");
        return -1;
    }
    s->read_only = opt->read_only;
    pthread_mutex_init(&s->read_mu, NULL);
    if (!opt->read_only && mkdir(opt->path, 0750) && errno != EEXIST) {
        snprintf(err, err_cap, "cannot create store directory %s: %s", opt->path,
                 bsf_strerror(-errno));
        return -1;
    }
    int rc = mdb_env_create(&s->env);
    if (rc)
        return fail(err, err_cap, "mdb_env_create", rc);
    mdb_env_set_maxdbs(s->env, 32); /* 17 in use with schema 2; room for the next ones */
    mdb_env_set_maxreaders(s->env, opt->max_readers ? opt->max_readers : 256);
    /* 0 keeps the size recorded in the store (readers must not shrink a writer's map). */
    rc = opt->map_size_mb ? mdb_env_set_mapsize(s->env, opt->map_size_mb << 20) : 0;
    if (rc) {
        mdb_env_close(s->env);
        return fail(err, err_cap, "mdb_env_set_mapsize", rc);
    }
    /* MDB_NOTLS: read transactions belong to our event-loop threads, not to OS threads, and
     * are reset/renewed per request. MDB_NORDAHEAD: random reads on a large map. */
    unsigned flags = MDB_NOTLS | MDB_NORDAHEAD | (opt->read_only ? MDB_RDONLY : 0);
    rc = mdb_env_open(s->env, opt->path, flags, 0640);
    if (rc) {
        mdb_env_close(s->env);
        snprintf(err, err_cap, "cannot open store %s: %s", opt->path, bsf_strerror(rc));
        return -1;
    }
    MDB_txn *txn;
    rc = mdb_txn_begin(s->env, NULL, opt->read_only ? MDB_RDONLY : 0, &txn);
    if (rc) {
        mdb_env_close(s->env);
        return fail(err, err_cap, "mdb_txn_begin", rc);
    }
    rc = mdb_dbi_open(txn, "meta", opt->read_only ? 0 : MDB_CREATE, &s->meta);
    if (rc == 0)
        rc = bsf_embedded_log_open(txn, &s->log, !opt->read_only);
    if (rc == 0)
        rc = bsf_projection_open(txn, &s->proj, !opt->read_only);
    if (rc) {
        mdb_txn_abort(txn);
        mdb_env_close(s->env);
        if (rc == MDB_NOTFOUND)
            snprintf(err, err_cap,
                     "%s is not a BSF store (no meta database), or a schema-1 store that bsfd "
                     "has not opened yet (opening it read-write migrates it)",
                     opt->path);
        else
            fail(err, err_cap, "cannot open the store's databases", rc);
        return -1;
    }
    if (!opt->read_only && bsf_schema_check(txn, s->meta, err, err_cap)) {
        mdb_txn_abort(txn);
        mdb_env_close(s->env);
        return -1;
    }
    rc = mdb_txn_commit(txn);
    if (rc) {
        mdb_env_close(s->env);
        return fail(err, err_cap, "cannot commit the store's set-up", rc);
    }
    const MDB_dbi records[] = {s->proj.bindings, s->proj.ue_bindings, s->proj.mbs_bindings};
    if (!opt->read_only && bsf_record_pass_run(s->env, s->meta, records, 3,
                                               opt->migration_batch, err, err_cap)) {
        mdb_env_close(s->env);
        return -1;
    }
    return 0;
}

void bsf_store_close(bsf_store_t *s)
{
    bsf_read_pool_free(s);
    if (s->env)
        mdb_env_close(s->env);
    s->env = NULL;
}

int bsf_store_write_event(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                          msgpack_sbuffer *buf, msgpack_sbuffer *scratch, uint64_t *position)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(buf);
    msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
    if (bsf_event_encode_version(ev, s->event_version ? s->event_version
                                                      : BSF_EVENT_WRITE_DEFAULT, &pk))
        return -ENOMEM;
    int rc = bsf_embedded_log_append(&s->log, txn, buf->data, buf->size, scratch, position);
    return rc ? rc : bsf_projection_apply(&s->proj, txn, ev, scratch);
}

int bsf_store_write_raw_event(bsf_store_t *s, MDB_txn *txn, const char *raw, size_t len,
                              const bsf_event_t *ev, msgpack_sbuffer *scratch, uint64_t *position)
{
    int rc = bsf_embedded_log_append(&s->log, txn, raw, len, scratch, position);
    return rc ? rc : bsf_projection_apply(&s->proj, txn, ev, scratch);
}

/* The meta value under `k`, which must be `size` bytes: 0 with *v, MDB_NOTFOUND when there
 * is none, MDB_CORRUPTED for a value of another size, or LMDB's error. */
static int meta_get_fixed(bsf_store_t *s, MDB_txn *txn, MDB_val *k, size_t size, MDB_val *v)
{
    int rc = mdb_get(txn, s->meta, k, v);
    return rc == 0 && v->mv_size != size ? MDB_CORRUPTED : rc;
}

int bsf_store_load_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t *seq,
                              uint64_t *hlc)
{
    char name[32];
    snprintf(name, sizeof name, "site/%u", site);
    MDB_val k = {strlen(name), name}, v;
    int rc = meta_get_fixed(s, txn, &k, 16, &v);
    if (rc == MDB_NOTFOUND) {
        *seq = *hlc = 0;
        return 0;
    }
    if (rc)
        return rc;
    *seq = bsf_get_be64(v.mv_data);
    *hlc = bsf_get_be64((const uint8_t *)v.mv_data + 8);
    return 0;
}

int bsf_store_save_site_state(bsf_store_t *s, MDB_txn *txn, uint16_t site, uint64_t seq,
                              uint64_t hlc)
{
    char name[32];
    uint8_t value[16];
    snprintf(name, sizeof name, "site/%u", site);
    bsf_put_be64(value, seq);
    bsf_put_be64(value + 8, hlc);
    MDB_val k = {strlen(name), name}, v = {16, value};
    return mdb_put(txn, s->meta, &k, &v, 0);
}

static int meta_key(char *key, size_t cap, const char *prefix, const char *name, MDB_val *k)
{
    int n = snprintf(key, cap, "%s%s", prefix, name);
    if (n < 0 || (size_t)n >= cap)
        return -EINVAL;
    k->mv_size = (size_t)n;
    k->mv_data = key;
    return 0;
}

int bsf_store_load_position(bsf_store_t *s, MDB_txn *txn, const char *source, uint64_t *pos)
{
    char key[320];
    MDB_val k, v;
    int rc = meta_key(key, sizeof key, "pos/", source, &k);
    if (!rc)
        rc = meta_get_fixed(s, txn, &k, 8, &v);
    *pos = 0;
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return rc;
    *pos = bsf_get_be64(v.mv_data);
    return 0;
}

int bsf_store_save_position(bsf_store_t *s, MDB_txn *txn, const char *source, uint64_t pos)
{
    char key[320];
    uint8_t value[8];
    MDB_val k;
    int rc = meta_key(key, sizeof key, "pos/", source, &k);
    if (rc)
        return rc;
    bsf_put_be64(value, pos);
    MDB_val v = {8, value};
    return mdb_put(txn, s->meta, &k, &v, 0);
}

int bsf_store_get_meta(bsf_store_t *s, MDB_txn *txn, const char *name, void *out, size_t cap,
                       size_t *len)
{
    char key[320];
    MDB_val k, v;
    int rc = meta_key(key, sizeof key, "ext/", name, &k);
    if (!rc)
        rc = mdb_get(txn, s->meta, &k, &v);
    if (rc)
        return rc;
    memcpy(out, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
    *len = v.mv_size;
    return 0;
}

int bsf_store_put_meta(bsf_store_t *s, MDB_txn *txn, const char *name, const void *value,
                       size_t len)
{
    char key[320];
    MDB_val k;
    int rc = meta_key(key, sizeof key, "ext/", name, &k);
    if (rc)
        return rc;
    MDB_val v = {len, (void *)value};
    return mdb_put(txn, s->meta, &k, &v, 0);
}

/* LMDB's free list (database 0) maps a transaction id to the pages it freed: an MDB_IDL whose
 * first element is the count of page numbers that follow. */
static int count_free_pages(bsf_store_t *s, uint64_t *pages)
{
    MDB_txn *txn;
    MDB_cursor *cur;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return rc;
    if ((rc = mdb_cursor_open(txn, 0, &cur)) == 0) {
        MDB_val k, v;
        *pages = 0;
        while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
            if (v.mv_size >= sizeof(size_t)) {
                size_t n;
                memcpy(&n, v.mv_data, sizeof n);
                *pages += n;
            }
        mdb_cursor_close(cur);
        if (rc == MDB_NOTFOUND)
            rc = 0;
    }
    mdb_txn_abort(txn);
    return rc;
}

/* Bytes the filesystem of the store directory still gives an unprivileged writer. */
static uint64_t fs_free_bytes(const bsf_store_t *s)
{
    const char *path;
    struct statvfs vfs;
    if (mdb_env_get_path(s->env, &path) || statvfs(path, &vfs))
        return UINT64_MAX;
    return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

int bsf_store_space(bsf_store_t *s, uint64_t scan_below, bsf_store_space_t *out)
{
    MDB_envinfo info;
    MDB_stat st;
    int rc = mdb_env_info(s->env, &info);
    if (!rc)
        rc = mdb_env_stat(s->env, &st);
    if (rc)
        return rc;
    uint64_t used = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    out->map = info.me_mapsize;
    out->beyond = out->map > used ? out->map - used : 0;
    /* The file grows into the filesystem: blocks it already holds past `used`, then the
     * filesystem's free space. */
    out->fs_free = fs_free_bytes(s);
    if (out->fs_free != UINT64_MAX) {
        uint64_t file = bsf_store_file_bytes(s);
        uint64_t room = out->fs_free + (file > used ? file - used : 0);
        out->beyond = min_u64(out->beyond, room);
        out->limit = min_u64(out->map, used + room);
    } else {
        out->limit = out->map;
    }
    out->total = out->beyond;
    uint64_t free_pages = 0;
    if (out->beyond < scan_below && (rc = count_free_pages(s, &free_pages)))
        return rc;
    out->total += free_pages * st.ms_psize;
    return 0;
}

uint64_t bsf_store_file_bytes(const bsf_store_t *s)
{
    const char *path;
    struct stat st;
    char file[4096];
    if (mdb_env_get_path(s->env, &path))
        return 0;
    snprintf(file, sizeof file, "%s/data.mdb", path);
    return stat(file, &st) == 0 ? (uint64_t)st.st_blocks * 512u : 0;
}
