/* A backup file: one compacted LMDB data file (what `mdb_copy -c` writes, and a store's
 * data.mdb as it is), checked before a restore uses it. Also the lock that tells whether a
 * process has a store open. Main thread of bsfctl. */
#ifndef BSF_BSFCTL_BACKUP_FILE_H
#define BSF_BSFCTL_BACKUP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t bytes;        /* the file's size */
    uint64_t log_position; /* the last event in its log (0: empty) */
    unsigned schema;       /* migrations/schema.h version */
    unsigned site;         /* the site id it keeps; 0 when it keeps none (older store) */
    uint64_t entries;      /* records of every database, counted by the walk */
} bsfctl_backup_info_t;

/* Opens `path` read-only without a lock file and checks it: an LMDB file not shorter than its
 * last page, a BSF store (meta, log, projections), a schema version this build reads, every
 * database readable from first to last record. Returns 0 with `info` filled, or -1 with the
 * reason in err. */
int bsfctl_backup_inspect(const char *path, bsfctl_backup_info_t *info, char *err,
                          size_t err_cap);

/* Takes LMDB's own lock of the store in `dir` (an exclusive fcntl lock on byte 0 of
 * dir/lock.mdb: every process with the environment open holds a shared lock there, and one
 * that opens it meanwhile waits for ours), creating the lock file when missing. Returns the
 * descriptor to keep open while `dir` changes (closing it releases the lock); -1 with the
 * holder's pid in *holder when a process has the store open; -2 with err on another failure. */
int bsfctl_store_lock(const char *dir, long *holder, char *err, size_t err_cap);

/* Fsyncs the directory holding `path` (after a rename into it). Returns 0 or -errno. */
int bsfctl_fsync_parent(const char *path);

#endif
