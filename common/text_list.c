/* '\n'-separated lists (see text_list.h). */
#include "common/text_list.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bsf_text_list_next(const char **cursor, char *item, size_t cap, bool *cut)
{
    const char *p = *cursor;
    if (!p || !*p)
        return false;
    size_t n = strcspn(p, "\n");
    if (cut)
        *cut = n >= cap;
    snprintf(item, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
    *cursor = p[n] ? p + n + 1 : p + n;
    return true;
}

long bsf_text_list_number(const char **p, long max)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    long v = strtol(*p, &end, 10);
    *p = end;
    return v <= max ? v : -1;
}
