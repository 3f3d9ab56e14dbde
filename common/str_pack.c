/* Strings packed into one allocation (see str_pack.h). */
#include "common/str_pack.h"

#include <string.h>

size_t bsf_str_pack_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

const char *bsf_str_pack_put(char **cursor, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *dst = *cursor;
    memcpy(dst, s, n);
    *cursor += n;
    return dst;
}
