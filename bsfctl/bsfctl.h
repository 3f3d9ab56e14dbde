/* bsfctl: the operator's tool for a BSF store (forensics, verification, rebuild). Each
 * command is a function taking the parsed options; they run while bsfd runs (LMDB allows
 * many reader processes) except where noted. */
#ifndef BSF_BSFCTL_BSFCTL_H
#define BSF_BSFCTL_BSFCTL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *store;
    const char *binding;
    const char *supi;
    const char *gpsi;
    const char *ue_addr;
    const char *out;
    const char *since; /* RFC 3339 or Unix milliseconds */
    const char *until;
    bool json;
    /* the replicated log */
    const char *kafka;      /* bootstrap servers: read Kafka instead of the local log */
    const char *topics;     /* comma-separated */
    const char *offset;     /* replay: start every topic at this offset */
    bool from_beginning;    /* replay: the default */
    const char *format;     /* export: jsonl (default) or msgpack */
    const char *map_size;   /* rebuild, replay: the new store's map in MiB (NULL: default) */
    const char *archive;    /* history, export, rebuild: the log's archive (log.archive_dir),
                               read before the store's live log */
    const char *to;         /* backup: the backup file to write */
    const char *from;       /* restore: the backup file to read */
    bool force;             /* restore: replace the store the directory holds */
} bsfctl_options_t;

/* The new store's map for rebuild and replay: --map-size MB (16..1048576) or `fallback_mb`.
 * Returns 0, or -1 with a message on stderr. */
int bsfctl_map_size(const bsfctl_options_t *o, uint64_t fallback_mb, uint64_t *out_mb);

int bsfctl_history(const bsfctl_options_t *o);
int bsfctl_digest(const bsfctl_options_t *o);
int bsfctl_rebuild(const bsfctl_options_t *o);
int bsfctl_stats(const bsfctl_options_t *o);
int bsfctl_replay(const bsfctl_options_t *o);
int bsfctl_export(const bsfctl_options_t *o);
/* Return 0, 1 (failed or refused, said on stderr) or 2 (usage). */
int bsfctl_backup(const bsfctl_options_t *o);
int bsfctl_restore(const bsfctl_options_t *o);

#endif
