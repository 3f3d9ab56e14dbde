/* bsf_strerror: one lookup over the three ranges of common/error.h. */
/* strerrordesc_np (_GNU_SOURCE, set for the whole build): libc's errno texts, no buffer. */
#include "common/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *table_text(int rc)
{
    switch (rc) {
#define BSF_ERROR_CASE(name, value, text)                                                      \
    case (value):                                                                              \
        return text;
        BSF_ERROR_MAP(BSF_ERROR_CASE)
        BSF_LMDB_ERROR_MAP(BSF_ERROR_CASE)
#undef BSF_ERROR_CASE
    default:
        return NULL;
    }
}

const char *bsf_strerror(int rc)
{
    if (rc == 0)
        return "success";
    const char *t = table_text(rc);
    if (t)
        return t;
    /* errno values are small; LMDB hands them back positive. (Negating only inside this
     * range: -INT_MIN does not exist.) */
    if (rc > -4096 && rc < 4096) {
        t = strerrordesc_np(rc < 0 ? -rc : rc);
        if (t)
            return t;
    }
    static _Thread_local char unknown[32];
    snprintf(unknown, sizeof unknown, "unknown error %d", rc);
    return unknown;
}
