/* File stamps; see file_stamp.h. */
#include "common/file_stamp.h"

#include <string.h>
#include <sys/stat.h>

void bsf_file_stamp_take(const char *path, bsf_file_stamp_t *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (!path || !path[0] || stat(path, &st) != 0)
        return;
    out->exists = true;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->size = (uint64_t)st.st_size;
    out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    out->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
}

bool bsf_file_stamp_differs(const bsf_file_stamp_t *a, const bsf_file_stamp_t *b)
{
    return a->exists != b->exists || a->dev != b->dev || a->ino != b->ino ||
           a->size != b->size || a->mtime_ns != b->mtime_ns || a->ctime_ns != b->ctime_ns;
}
