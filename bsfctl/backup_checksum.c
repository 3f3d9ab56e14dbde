/* Backup checksums (see backup_checksum.h). */
#include "bsfctl/backup_checksum.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bsfctl/backup_file.h"
#include "common/error.h"

static int hash_fd(int fd, EVP_MD_CTX *ctx)
{
    static char buf[1 << 20];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n > 0 && !EVP_DigestUpdate(ctx, buf, (size_t)n))
            return -EIO;
    }
}

int bsfctl_sha256_file(const char *path, char hex[BSFCTL_SHA256_HEX_LEN + 1])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    int rc = !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? -EIO : hash_fd(fd, ctx);
    if (!rc && (!EVP_DigestFinal_ex(ctx, md, &md_len) || md_len != 32))
        rc = -EIO;
    EVP_MD_CTX_free(ctx);
    close(fd);
    for (unsigned i = 0; !rc && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return rc;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int bsfctl_checksum_write(const char *path, const char *hex)
{
    char side[4096], tmp[4096 + 32];
    if (snprintf(side, sizeof side, "%s.sha256", path) >= (int)sizeof side)
        return -ENAMETOOLONG;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", side, (long)getpid());
    FILE *f = fopen(tmp, "wx");
    if (!f)
        return -errno;
    int rc = fprintf(f, "%s  %s\n", hex, base_name(path)) < 0 ? -EIO : 0;
    if (fflush(f) && !rc)
        rc = -errno;
    if (!rc && fsync(fileno(f)))
        rc = -errno;
    if (fclose(f) && !rc)
        rc = -errno;
    if (!rc && rename(tmp, side))
        rc = -errno;
    if (rc)
        unlink(tmp);
    return rc ? rc : bsfctl_fsync_parent(side);
}

int bsfctl_checksum_read(const char *path, char hex[BSFCTL_SHA256_HEX_LEN + 1], char *err,
                         size_t err_cap)
{
    char side[4096], line[4096 + 80];
    if (snprintf(side, sizeof side, "%s.sha256", path) >= (int)sizeof side) {
        snprintf(err, err_cap, "the path is too long");
        return -1;
    }
    FILE *f = fopen(side, "re");
    if (!f && errno == ENOENT)
        return 1;
    if (!f) {
        snprintf(err, err_cap, "cannot read %s: %s", side, bsf_strerror(-errno));
        return -1;
    }
    bool ok = fgets(line, sizeof line, f) != NULL && fgetc(f) == EOF;
    fclose(f);
    size_t n = ok ? strspn(line, "0123456789abcdef") : 0;
    if (n != BSFCTL_SHA256_HEX_LEN || strncmp(line + n, "  ", 2) || !strchr(line, '\n')) {
        snprintf(err, err_cap, "%s is not a SHA-256 line (64 lowercase hex digits, two spaces, "
                 "the file name)", side);
        return -1;
    }
    memcpy(hex, line, BSFCTL_SHA256_HEX_LEN);
    hex[BSFCTL_SHA256_HEX_LEN] = '\0';
    return 0;
}
