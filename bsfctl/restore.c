/* bsfctl restore: a backup file (bsfctl backup) into a store directory. Under LMDB's own lock
 * of that directory (backup_file.h: refused while bsfd or any process has the store open, and
 * one starting meanwhile waits), the file is copied next to data.mdb, fsynced, checked and
 * renamed over it, so the directory holds the old store or the new one, never a part. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bsfctl/backup_checksum.h"
#include "bsfctl/backup_file.h"
#include "bsfctl/bsfctl.h"
#include "common/error.h"

/* Copies `from` into the new file `to` and fsyncs it. Returns 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -errno;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (out < 0) {
        int e = -errno;
        close(in);
        return e;
    }
    static char buf[1 << 20];
    ssize_t n;
    int rc = 0;
    while (!rc && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0) {
            rc = errno == EINTR ? 0 : -errno;
            continue;
        }
        for (ssize_t done = 0, w; !rc && done < n; done += w > 0 ? w : 0)
            if ((w = write(out, buf + done, (size_t)(n - done))) < 0 && errno != EINTR)
                rc = -errno;
    }
    if (!rc && fsync(out))
        rc = -errno;
    if (close(out) && !rc)
        rc = -errno;
    close(in);
    return rc;
}

/* Checks `from` against `from`.sha256 (written by bsfctl backup). Returns 0 (equal, or no
 * checksum file: said on stderr), or 1 after printing why it is refused. */
static int check_sum(const char *from)
{
    char want[BSFCTL_SHA256_HEX_LEN + 1], got[BSFCTL_SHA256_HEX_LEN + 1], err[512];
    int r = bsfctl_checksum_read(from, want, err, sizeof err);
    if (r == 1) {
        fprintf(stderr, "bsfctl: warning: no %s.sha256 beside the backup (bsfctl before "
                        "checksums, or a copy without it): only its structure is checked\n",
                from);
        return 0;
    }
    if (r) {
        fprintf(stderr, "bsfctl: refused: %s\n", err);
        return 1;
    }
    if ((r = bsfctl_sha256_file(from, got))) {
        fprintf(stderr, "bsfctl: cannot read %s: %s\n", from, bsf_strerror(r));
        return 1;
    }
    if (strcmp(got, want)) {
        fprintf(stderr, "bsfctl: refused: %s does not match its checksum: SHA-256 %s, %s.sha256 "
                        "records %s (the file changed after the backup)\n",
                from, got, from, want);
        return 1;
    }
    return 0;
}

/* Refuses a directory that holds a store (unless --force) or that a process has open.
 * Returns the lock's descriptor, or -1 after printing why. */
static int take_dir(const bsfctl_options_t *o, const char *data)
{
    if (mkdir(o->store, 0750) && errno != EEXIST) {
        fprintf(stderr, "bsfctl: cannot create %s: %s\n", o->store, bsf_strerror(-errno));
        return -1;
    }
    char err[512];
    long holder = 0;
    int lock = bsfctl_store_lock(o->store, &holder, err, sizeof err);
    if (lock == -1)
        fprintf(stderr, "bsfctl: refused: a process (pid %ld) has the store %s open; stop bsfd "
                        "first\n", holder, o->store);
    else if (lock < 0)
        fprintf(stderr, "bsfctl: %s\n", err);
    struct stat st;
    if (lock >= 0 && !o->force && stat(data, &st) == 0) {
        fprintf(stderr, "bsfctl: refused: %s holds a store already (--force replaces it)\n",
                o->store);
        close(lock);
        return -1;
    }
    return lock < 0 ? -1 : lock;
}

int bsfctl_restore(const bsfctl_options_t *o)
{
    if (!o->from) {
        fprintf(stderr, "bsfctl: restore needs --from PATH\n");
        return 2;
    }
    char err[512], data[4096], tmp[4096];
    if (snprintf(data, sizeof data, "%s/data.mdb", o->store) >= (int)sizeof data - 32) {
        fprintf(stderr, "bsfctl: --store is too long\n");
        return 2;
    }
    snprintf(tmp, sizeof tmp, "%s/.restore.%ld", o->store, (long)getpid());
    bsfctl_backup_info_t info;
    if (check_sum(o->from))
        return 1;
    if (bsfctl_backup_inspect(o->from, &info, err, sizeof err)) {
        fprintf(stderr, "bsfctl: refused: %s is not a usable backup: %s\n", o->from, err);
        return 1;
    }
    int lock = take_dir(o, data);
    if (lock < 0)
        return 1;
    int rc = copy_file(o->from, tmp), out = 1;
    if (rc)
        fprintf(stderr, "bsfctl: copying %s into %s failed: %s\n", o->from, tmp, bsf_strerror(rc));
    else if (bsfctl_backup_inspect(tmp, &info, err, sizeof err)) /* what landed on this disk */
        fprintf(stderr, "bsfctl: the copy in %s does not check: %s\n", o->store, err);
    else if (rename(tmp, data) || (rc = bsfctl_fsync_parent(data)))
        fprintf(stderr, "bsfctl: cannot put the store in place: %s\n",
                bsf_strerror(rc ? rc : -errno));
    else
        out = 0;
    if (out)
        unlink(tmp);
    close(lock); /* after the rename: a bsfd waiting on the lock opens the new file */
    if (out)
        return out;
    if (o->json)
        printf("{\"bytes\":%llu,\"log_position\":%llu,\"site_id\":%u,\"schema_version\":%u}\n",
               (unsigned long long)info.bytes, (unsigned long long)info.log_position, info.site,
               info.schema);
    else
        printf("restored %s into %s: %llu bytes, log position %llu, site %u%s, schema version "
               "%u\n",
               o->from, o->store, (unsigned long long)info.bytes,
               (unsigned long long)info.log_position, info.site,
               info.site ? "" : " (not kept: adopts site.id at start)", info.schema);
    return 0;
}
