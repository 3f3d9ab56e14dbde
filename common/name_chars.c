/* Plain-name characters (common/name_chars.h). */
#include "common/name_chars.h"

#include <string.h>

bool bsf_name_chars_only(const char *s, size_t n)
{
    static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-._";
    for (size_t i = 0; i < n; i++)
        if (!s[i] || !strchr(name_chars, s[i]))
            return false;
    return true;
}
