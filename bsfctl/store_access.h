/* Opening a store from bsfctl. */
#ifndef BSF_BSFCTL_STORE_ACCESS_H
#define BSF_BSFCTL_STORE_ACCESS_H

#include <stdint.h>

#include "engine/store.h"

/* Opens the store read-only and begins a read transaction; prints the reason on failure. */
int bsfctl_open_read(const char *path, bsf_store_t *store, MDB_txn **txn);
/* NULL -> -1 (no bound); RFC 3339 or Unix milliseconds. Returns 0 or -1. */
int bsfctl_parse_time(const char *s, int64_t *ms);
void bsfctl_hex(const uint8_t *b, size_t n, char *out);
/* Prints the projections' digest (hex) on stdout, in `txn`, or NULL: in a read transaction
 * of its own. Returns 0, or 1 after printing why on stderr. */
int bsfctl_print_digest(bsf_store_t *store, MDB_txn *txn);

#endif
