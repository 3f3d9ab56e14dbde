/* What a file looks like from outside (device, inode, size, modification time), to notice
 * that a certificate or key file was replaced or rewritten without reading it (issue 13 §3:
 * reload on change). Pure; any thread. */
#ifndef BSF_COMMON_FILE_STAMP_H
#define BSF_COMMON_FILE_STAMP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    bool exists;
} bsf_file_stamp_t;

/* Fills *out from stat(path) (follows symbolic links: a Kubernetes secret's ..data swap is
 * seen); a file that cannot be stat'ed gets exists = false. path NULL or "": exists false. */
void bsf_file_stamp_take(const char *path, bsf_file_stamp_t *out);
/* True when the two stamps differ. */
bool bsf_file_stamp_differs(const bsf_file_stamp_t *a, const bsf_file_stamp_t *b);

#endif
