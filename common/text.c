#include "common/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void bsf_text_printf(bsf_text_t *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 8192;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(t->data, cap);
        if (!p) {
            t->failed = true;
            return;
        }
        t->data = p;
        t->cap = cap;
    }
}

void bsf_text_free(bsf_text_t *t)
{
    free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
}
