/* bsfctl backup: a compacted copy of the store's data file, consistent (one LMDB read
 * transaction, as `mdb_copy -c`) while bsfd writes, into a temporary file that is fsynced,
 * checked and renamed to --to; its SHA-256 goes beside it in --to.sha256 (backup_checksum.h)
 * for restore to check. */
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <unistd.h>

#include "bsfctl/backup_checksum.h"
#include "bsfctl/backup_file.h"
#include "bsfctl/bsfctl.h"
#include "common/error.h"
#include "engine/store.h"

/* Copies the environment into `tmp` (created, never an existing file) and fsyncs it.
 * Returns 0, or 1 after printing why. */
static int copy_to(bsf_store_t *store, const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd < 0) {
        fprintf(stderr, "bsfctl: cannot create %s: %s\n", tmp, bsf_strerror(-errno));
        return 1;
    }
    int rc = mdb_env_copyfd2(store->env, fd, MDB_CP_COMPACT);
    if (!rc && fsync(fd))
        rc = -errno;
    if (close(fd) && !rc)
        rc = -errno;
    if (rc) {
        fprintf(stderr, "bsfctl: copying the store into %s failed: %s\n", tmp, bsf_strerror(rc));
        return 1;
    }
    return 0;
}

static void print_info(const char *path, const bsfctl_backup_info_t *in, const char *sha,
                       bool json)
{
    if (json)
        printf("{\"bytes\":%llu,\"log_position\":%llu,\"site_id\":%u,"
               "\"schema_version\":%u,\"sha256\":\"%s\"}\n",
               (unsigned long long)in->bytes, (unsigned long long)in->log_position, in->site,
               in->schema, sha);
    else
        printf("%s: %llu bytes, log position %llu, site %u%s, schema version %u, sha256 %s\n",
               path, (unsigned long long)in->bytes, (unsigned long long)in->log_position,
               in->site, in->site ? "" : " (not kept yet)", in->schema, sha);
}

int bsfctl_backup(const bsfctl_options_t *o)
{
    if (!o->to) {
        fprintf(stderr, "bsfctl: backup needs --to PATH\n");
        return 2;
    }
    char err[512], tmp[4096];
    bsf_store_t store;
    bsf_store_options_t so = {o->store, 0, true, 126, 0};
    if (bsf_store_open(&store, &so, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        return 1;
    }
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", o->to, (long)getpid()) >= (int)sizeof tmp) {
        fprintf(stderr, "bsfctl: --to is too long\n");
        bsf_store_close(&store);
        return 2;
    }
    int out = copy_to(&store, tmp);
    bsf_store_close(&store);
    /* What the copy holds, read from it: the position and site id of that one snapshot. */
    bsfctl_backup_info_t info;
    if (!out && bsfctl_backup_inspect(tmp, &info, err, sizeof err)) {
        fprintf(stderr, "bsfctl: the copy does not check: %s\n", err);
        out = 1;
    }
    char sha[BSFCTL_SHA256_HEX_LEN + 1];
    int rc = 0;
    if (!out && (rc = bsfctl_sha256_file(tmp, sha))) {
        fprintf(stderr, "bsfctl: cannot read the copy %s back: %s\n", tmp, bsf_strerror(rc));
        out = 1;
    }
    if (!out && (rename(tmp, o->to) ? (rc = -errno) : (rc = bsfctl_fsync_parent(o->to)))) {
        fprintf(stderr, "bsfctl: cannot put the backup at %s: %s\n", o->to, bsf_strerror(rc));
        out = 1;
    }
    if (out) {
        unlink(tmp);
        return out;
    }
    if ((rc = bsfctl_checksum_write(o->to, sha))) {
        fprintf(stderr, "bsfctl: cannot write %s.sha256: %s\n", o->to, bsf_strerror(rc));
        return 1;
    }
    print_info(o->to, &info, sha, o->json);
    return 0;
}
