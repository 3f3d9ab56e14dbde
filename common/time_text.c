#include "common/time_text.h"

#include <stdio.h>
#include <time.h>

size_t bsf_time_format_rfc3339(int64_t ms, char out[32])
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    return n + (size_t)snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}
