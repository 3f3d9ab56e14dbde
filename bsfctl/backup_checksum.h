/* The checksum of a backup file: `<file>.sha256` beside it, one line as sha256sum(1) writes it
 * ("<64 lowercase hex>  <file name>\n"), so `sha256sum -c` checks a backup as well as
 * `bsfctl restore` does. LMDB has no checksum of its own: a byte changed inside a record
 * leaves a file that opens and walks; the SHA-256 (OpenSSL EVP) is what finds it. Main thread
 * of bsfctl. */
#ifndef BSF_BSFCTL_BACKUP_CHECKSUM_H
#define BSF_BSFCTL_BACKUP_CHECKSUM_H

#include <stddef.h>

#define BSFCTL_SHA256_HEX_LEN 64

/* SHA-256 of the whole file at `path`, as hex with a NUL into `hex`. Returns 0, or -errno
 * (-EIO when OpenSSL fails). */
int bsfctl_sha256_file(const char *path, char hex[BSFCTL_SHA256_HEX_LEN + 1]);

/* Writes `path`.sha256 for `hex` (a temporary file, fsynced, renamed). Returns 0 or -errno. */
int bsfctl_checksum_write(const char *path, const char *hex);

/* Reads `path`.sha256 into `hex`. Returns 0; 1 when there is no such file (a backup of an
 * older bsfctl); -1 with the reason in err when it cannot be read or is not one line of 64
 * hex digits and a name. */
int bsfctl_checksum_read(const char *path, char hex[BSFCTL_SHA256_HEX_LEN + 1], char *err,
                         size_t err_cap);

#endif
