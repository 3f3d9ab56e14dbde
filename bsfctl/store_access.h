/* Opening a store from bsfctl (its main thread; messages go to stderr). */
#ifndef BSF_BSFCTL_STORE_ACCESS_H
#define BSF_BSFCTL_STORE_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "bsfctl/bsfctl.h"
#include "engine/store.h"
#include "log/log_history.h"

/* Opens the store read-only and begins a read transaction; prints the reason on failure. */
int bsfctl_open_read(const char *path, bsf_store_t *store, MDB_txn **txn);
/* A store written from scratch (rebuild, replay) goes to a new directory: returns 0 when
 * `dir` holds no store (no data.mdb), -1 after saying on stderr that it does. */
int bsfctl_refuse_existing_store(const char *dir);
/* NULL -> -1 (no bound); RFC 3339 or Unix milliseconds. Returns 0 or -1. */
int bsfctl_parse_time(const char *s, int64_t *ms);
/* Every event of the store's history: the archive (--archive) then the live log
 * (log/log_history.h), in position order. Says on stderr when positions are missing (trimmed
 * by log.retention and not in the given archive). `visit` gets the live log's events' stored
 * form too (log/log_history.h). Returns 0 or the code of bsf_log_history_scan, after printing
 * it on stderr. */
int bsfctl_scan_history(const bsfctl_options_t *o, bsf_store_t *store, MDB_txn *txn,
                        bsf_log_visit_stored_fn visit, void *ctx);
void bsfctl_hex(const uint8_t *b, size_t n, char *out);
/* Prints the projections' digest (hex) on stdout, in `txn`, or NULL: in a read transaction
 * of its own. Returns 0, or 1 after printing why on stderr. */
int bsfctl_print_digest(bsf_store_t *store, MDB_txn *txn, bool json);

#endif
