/* Checking a backup file and locking a store directory; see backup_file.h. */
#include "bsfctl/backup_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <lmdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "engine/store.h"
#include "engine/site_identity.h"
#include "log/embedded_log.h"
#include "migrations/schema.h"

/* Reads every record of every database (the named ones listed in the main one): LMDB then
 * visits every branch and leaf page, and a page that is not one returns MDB_CORRUPTED or
 * MDB_PAGE_NOTFOUND. Returns 0 or an LMDB code. */
static int walk_all(MDB_txn *txn, uint64_t *entries)
{
    MDB_dbi main_db;
    MDB_cursor *names;
    int rc = mdb_dbi_open(txn, NULL, 0, &main_db);
    if (rc || (rc = mdb_cursor_open(txn, main_db, &names)))
        return rc;
    MDB_val name, v;
    char buf[256];
    while (!(rc = mdb_cursor_get(names, &name, &v, MDB_NEXT))) {
        if (name.mv_size == 0 || name.mv_size >= sizeof buf)
            continue;
        memcpy(buf, name.mv_data, name.mv_size);
        buf[name.mv_size] = '\0';
        MDB_dbi dbi;
        MDB_cursor *c;
        if ((rc = mdb_dbi_open(txn, buf, 0, &dbi)) || (rc = mdb_cursor_open(txn, dbi, &c)))
            break;
        MDB_val k, d;
        while (!(rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)))
            (*entries)++;
        mdb_cursor_close(c);
        if (rc != MDB_NOTFOUND)
            break;
    }
    mdb_cursor_close(names);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* The BSF part of the check, in a read transaction. Returns 0 or -1 with err. */
static int inspect_txn(MDB_txn *txn, bsfctl_backup_info_t *info, char *err, size_t cap)
{
    bsf_store_t s = {0};
    int rc = mdb_dbi_open(txn, "meta", 0, &s.meta);
    MDB_val k = {14, "schema_version"}, v;
    if (!rc)
        rc = mdb_get(txn, s.meta, &k, &v);
    if (rc) {
        snprintf(err, cap, "not a BSF store (no meta database or schema version): %s",
                 bsf_strerror(rc));
        return -1;
    }
    info->schema = v.mv_size == 1 ? *(unsigned char *)v.mv_data : 0;
    if (info->schema < 1 || info->schema > BSF_SCHEMA_VERSION) {
        snprintf(err, cap, "schema version %u; this build reads versions 1 to %u", info->schema,
                 BSF_SCHEMA_VERSION);
        return -1;
    }
    if ((rc = bsf_embedded_log_open(txn, &s.log, false))) {
        snprintf(err, cap, "cannot open its event log: %s", bsf_strerror(rc));
        return -1;
    }
    info->log_position = s.log.last;
    rc = bsf_site_identity_read(&s, txn, &info->site);
    if (rc == 1)
        info->site = 0;
    else if (rc) {
        snprintf(err, cap, "cannot read its site id: %s", bsf_strerror(rc));
        return -1;
    }
    if ((rc = walk_all(txn, &info->entries))) {
        snprintf(err, cap, "a database does not read to its end: %s", bsf_strerror(rc));
        return -1;
    }
    return 0;
}

int bsfctl_backup_inspect(const char *path, bsfctl_backup_info_t *info, char *err,
                          size_t err_cap)
{
    memset(info, 0, sizeof *info);
    struct stat st;
    if (stat(path, &st)) {
        snprintf(err, err_cap, "%s: %s", path, bsf_strerror(-errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_cap, "%s is not a file (a backup is one file)", path);
        return -1;
    }
    info->bytes = (uint64_t)st.st_size;
    MDB_env *env;
    int rc = mdb_env_create(&env);
    if (rc) {
        snprintf(err, err_cap, "mdb_env_create: %s", bsf_strerror(rc));
        return -1;
    }
    mdb_env_set_maxdbs(env, 64);
    /* MDB_NOLOCK: a file no process serves; no lock file is left beside it. */
    rc = mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY | MDB_NOLOCK, 0640);
    MDB_envinfo ei;
    MDB_stat es;
    MDB_txn *txn = NULL;
    int out = -1;
    if (rc) {
        snprintf(err, err_cap, "%s is not an LMDB file: %s", path, bsf_strerror(rc));
    } else if (mdb_env_info(env, &ei) || mdb_env_stat(env, &es) ||
               ((uint64_t)ei.me_last_pgno + 1) * es.ms_psize > info->bytes) {
        /* checked before any page is read: reading past the end of the map is SIGBUS */
        snprintf(err, err_cap, "%s is truncated: %llu bytes, its last page ends at %llu", path,
                 (unsigned long long)info->bytes,
                 ((unsigned long long)ei.me_last_pgno + 1) * es.ms_psize);
    } else if ((rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn))) {
        snprintf(err, err_cap, "%s: %s", path, bsf_strerror(rc));
    } else if (inspect_txn(txn, info, err, err_cap) == 0) {
        out = 0;
    }
    if (txn)
        mdb_txn_abort(txn);
    mdb_env_close(env);
    return out;
}

int bsfctl_store_lock(const char *dir, long *holder, char *err, size_t err_cap)
{
    char file[4096];
    snprintf(file, sizeof file, "%s/lock.mdb", dir);
    int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(err, err_cap, "cannot open %s: %s", file, bsf_strerror(-errno));
        return -2;
    }
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    if (fcntl(fd, F_SETLK, &lk) == 0)
        return fd;
    int e = errno;
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    *holder = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK ? (long)who.l_pid : 0;
    close(fd);
    if (e == EACCES || e == EAGAIN)
        return -1;
    snprintf(err, err_cap, "cannot lock %s: %s", file, bsf_strerror(-e));
    return -2;
}

int bsfctl_fsync_parent(const char *path)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) ? -errno : 0;
    close(fd);
    return rc;
}
